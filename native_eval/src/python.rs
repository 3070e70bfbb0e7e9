use pyo3::prelude::*;

#[pymodule]
fn _native(m: &Bound<'_, PyModule>) -> PyResult<()> {
    m.add("__version__", env!("CARGO_PKG_VERSION"))?;
    m.add("build_profile", if cfg!(debug_assertions) { "debug" } else { "release" })?;
    Ok(())
}

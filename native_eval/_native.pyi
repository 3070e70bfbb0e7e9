"""Type stub for the Rust extension module native_eval._native."""

__version__: str
build_profile: str

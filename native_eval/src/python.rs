//! Python bindings (PyO3): argument conversion and result objects only.
//!
//! Design choices:
//! - Every input problem becomes `ValueError` with the engine's message
//!   (unknown card, duplicate card, wrong count, unknown variant, malformed
//!   pots or hands), including arguments of the wrong shape, so callers can
//!   rely on one exception type; nothing here can panic on input.
//! - Cards arrive as one space-separated string or a sequence of two-character
//!   strings; both are parsed straight from the string bytes into fixed
//!   buffers, so a per-call `evaluate` allocates nothing but its result.
//! - Result objects (`Hand`, `Showdown`, `PotResult`) are frozen classes that
//!   keep Rust data and build Python lists and dicts only when an attribute is
//!   read, which keeps `showdown` cheap when a caller reads only `awards`.
//! - `evaluate_batch` releases the GIL (`Python::detach`) while evaluating.
//!   A `bytes` input is immutable, so it is read in place; any other buffer is
//!   copied first, so another thread mutating it cannot race with the
//!   evaluation. The result array is created first and written while detached;
//!   no other code holds a reference to it yet.

use crate::cards::{card_str, parse_card_bytes, Card, CardSet};
use crate::error::EvalError;
use crate::rank::{self, evaluate_unchecked};
use crate::showdown::{showdown as resolve, PotAward, PotSpec, ShowdownResult};
use crate::variant::{best_hand as best, Hand, Variant, VARIANTS};
use pyo3::buffer::PyBuffer;
use pyo3::exceptions::PyValueError;
use pyo3::prelude::*;
use pyo3::sync::PyOnceLock;
use pyo3::types::{PyBytes, PyDict, PyList, PyString, PyTuple, PyType};

impl From<EvalError> for PyErr {
    fn from(e: EvalError) -> PyErr {
        PyValueError::new_err(e.to_string())
    }
}

fn value_error(msg: impl Into<String>) -> PyErr {
    PyValueError::new_err(msg.into())
}

/// Appends the cards of one Python string (space separated) to `out`.
fn push_str_cards(s: &Bound<'_, PyString>, out: &mut Vec<Card>) -> PyResult<()> {
    let text = s.to_str().map_err(|_| value_error("cards must be ASCII text"))?;
    for tok in text.split_ascii_whitespace() {
        out.push(parse_card_bytes(tok.as_bytes())?);
    }
    Ok(())
}

fn push_one_card(item: &Bound<'_, PyAny>, out: &mut Vec<Card>) -> PyResult<()> {
    match item.cast::<PyString>() {
        Ok(s) => {
            let text = s.to_str().map_err(|_| value_error("cards must be ASCII text"))?;
            out.push(parse_card_bytes(text.as_bytes())?);
            Ok(())
        }
        Err(_) => Err(value_error(format!(
            "a card must be a two-character string such as 'Ah', got {}",
            item.repr().map(|r| r.to_string()).unwrap_or_else(|_| "an object".into())
        ))),
    }
}

/// Appends the cards of `obj` (a string or a sequence of card strings).
fn push_cards(obj: &Bound<'_, PyAny>, out: &mut Vec<Card>) -> PyResult<()> {
    if let Ok(s) = obj.cast::<PyString>() {
        return push_str_cards(s, out);
    }
    if let Ok(list) = obj.cast::<PyList>() {
        for item in list.iter() {
            push_one_card(&item, out)?;
        }
        return Ok(());
    }
    if let Ok(t) = obj.cast::<PyTuple>() {
        for item in t.iter() {
            push_one_card(&item, out)?;
        }
        return Ok(());
    }
    let iter = obj
        .try_iter()
        .map_err(|_| value_error("cards must be a string such as 'Ah Kd' or a sequence of card strings"))?;
    for item in iter {
        push_one_card(&item?, out)?;
    }
    Ok(())
}

fn cards_of(obj: &Bound<'_, PyAny>) -> PyResult<Vec<Card>> {
    let mut v = Vec::with_capacity(8);
    push_cards(obj, &mut v)?;
    Ok(v)
}

fn card_list(cards: &[Card]) -> Vec<String> {
    cards.iter().map(|&c| card_str(c)).collect()
}

/// Parses a string of up to seven cards into a fixed buffer (the per-call
/// fast path of `evaluate`); returns the count, or None if it needs the
/// general path (more than seven tokens).
#[inline]
fn parse_small_str(text: &[u8], buf: &mut [u8; 7]) -> PyResult<Option<usize>> {
    let mut n = 0;
    for tok in text.split(|b| b.is_ascii_whitespace()).filter(|t| !t.is_empty()) {
        if n == 7 {
            return Ok(None);
        }
        buf[n] = parse_card_bytes(tok)?;
        n += 1;
    }
    Ok(Some(n))
}

/// evaluate(cards) -> int: best five-card high value of 5, 6 or 7 cards.
#[pyfunction]
fn evaluate(cards: &Bound<'_, PyAny>) -> PyResult<u16> {
    let mut buf = [0u8; 7];
    let mut n = None;
    if let Ok(s) = cards.cast::<PyString>() {
        let text = s.to_str().map_err(|_| value_error("cards must be ASCII text"))?;
        n = parse_small_str(text.as_bytes(), &mut buf)?;
    } else if let Ok(list) = cards.cast::<PyList>() {
        let len = list.len();
        if len <= 7 {
            for (i, item) in list.iter().enumerate() {
                let s = item.cast::<PyString>().map_err(|_| value_error("a card must be a two-character string such as 'Ah'"))?;
                let text = s.to_str().map_err(|_| value_error("cards must be ASCII text"))?;
                buf[i] = parse_card_bytes(text.as_bytes())?;
            }
            n = Some(len);
        }
    }
    let v = match n {
        Some(n) => {
            if !(5..=7).contains(&n) {
                return Err(EvalError::WrongCardCount(format!("evaluate takes 5, 6 or 7 cards, got {n}")).into());
            }
            CardSet::default().insert_all(&buf[..n])?;
            evaluate_unchecked(&buf[..n])
        }
        None => rank::evaluate(&cards_of(cards)?)?,
    };
    Ok(v)
}

/// evaluate_front(cards) -> int: value of a three-card Chinese poker front hand
/// (high card, pair, three of a kind; no straights or flushes).
#[pyfunction]
fn evaluate_front(cards: &Bound<'_, PyAny>) -> PyResult<u32> {
    let v = cards_of(cards)?;
    if v.len() != 3 {
        return Err(EvalError::WrongCardCount(format!("evaluate_front takes 3 cards, got {}", v.len())).into());
    }
    CardSet::default().insert_all(&v)?;
    Ok(rank::three::front_value(&[v[0], v[1], v[2]]))
}

/// category(value) -> str: category name of an `evaluate` value.
#[pyfunction]
fn category(value: &Bound<'_, PyAny>) -> PyResult<&'static str> {
    if !value.is_instance_of::<pyo3::types::PyInt>() || value.is_instance_of::<pyo3::types::PyBool>() {
        return Err(value_error("value must be an int"));
    }
    let v = value
        .extract::<u32>()
        .map_err(|_| value_error(format!("{value} is not a hand value (expected 1..=7462)")))?;
    Ok(rank::category(v)?.name())
}

/// card_codes(cards) -> bytes: batch codes (4 * rank + suit) of the cards.
#[pyfunction]
fn card_codes<'py>(py: Python<'py>, cards: &Bound<'py, PyAny>) -> PyResult<Bound<'py, PyBytes>> {
    let v = cards_of(cards)?;
    Ok(PyBytes::new(py, &v))
}

/// card_names(codes) -> list[str]: the card strings of batch codes.
#[pyfunction]
fn card_names(codes: &Bound<'_, PyAny>) -> PyResult<Vec<String>> {
    let buf = PyBuffer::<u8>::get(codes).map_err(|_| value_error("codes must be a bytes-like buffer of card codes"))?;
    let v = buf.to_vec(codes.py())?;
    v.iter().map(|&c| crate::cards::check_code(c).map(card_str).map_err(PyErr::from)).collect()
}

static ARRAY_TYPE: PyOnceLock<Py<PyType>> = PyOnceLock::new();

/// evaluate_batch(codes, hand_size) -> array('H'): values of many hands.
#[pyfunction]
fn evaluate_batch<'py>(py: Python<'py>, codes: &Bound<'py, PyAny>, hand_size: &Bound<'py, PyAny>) -> PyResult<Bound<'py, PyAny>> {
    let hand_size: i64 = hand_size.extract().map_err(|_| value_error("hand_size must be an int"))?;
    if !(5..=7).contains(&hand_size) {
        return Err(value_error(format!("hand_size must be 5, 6 or 7, got {hand_size}")));
    }
    let hand_size = hand_size as usize;
    // Borrow immutable bytes in place; copy any other buffer.
    let owned: Vec<u8>;
    let (ptr, len) = if let Ok(b) = codes.cast::<PyBytes>() {
        let s = b.as_bytes();
        (s.as_ptr() as usize, s.len())
    } else {
        let buf = PyBuffer::<u8>::get(codes)
            .map_err(|_| value_error("codes must be a bytes-like buffer of card codes (format 'B')"))?;
        owned = buf.to_vec(py)?;
        (owned.as_ptr() as usize, owned.len())
    };
    if len % hand_size != 0 {
        return Err(EvalError::WrongCardCount(format!("{len} codes do not divide into hands of {hand_size}")).into());
    }
    let n = len / hand_size;
    let array_type = ARRAY_TYPE.import(py, "array", "array")?;
    let out = array_type.call1(("H", PyList::new(py, [0u16])?))?.mul(n)?;
    let out_buf = PyBuffer::<u16>::get(&out)?;
    let out_ptr = out_buf.buf_ptr() as usize;
    let result = py.detach(move || {
        // SAFETY: `codes` (or `owned`) outlives this call and a bytes object
        // or our private copy cannot change; `out` was created above, is
        // referenced by nobody else, and holds exactly n u16 values.
        let input = unsafe { std::slice::from_raw_parts(ptr as *const u8, len) };
        let output = unsafe { std::slice::from_raw_parts_mut(out_ptr as *mut u16, n) };
        rank::evaluate_batch(input, hand_size, output)
    });
    drop(out_buf);
    result?;
    Ok(out)
}

/// The best hand of one player.
#[pyclass(frozen, name = "Hand", module = "native_eval._native")]
struct PyHand {
    inner: Hand,
}

#[pymethods]
impl PyHand {
    #[getter]
    fn value(&self) -> u32 {
        self.inner.value
    }
    #[getter]
    fn category(&self) -> &'static str {
        self.inner.category.name()
    }
    #[getter]
    fn cards(&self) -> Vec<String> {
        card_list(&self.inner.cards)
    }
    #[getter]
    fn low(&self) -> Option<u32> {
        self.inner.low
    }
    #[getter]
    fn low_cards(&self) -> Option<Vec<String>> {
        self.inner.low_cards.as_deref().map(card_list)
    }
    fn __repr__(&self) -> String {
        let low = match (&self.inner.low, &self.inner.low_cards) {
            (Some(l), Some(c)) => format!(", low={l}, low_cards={:?}", card_list(c)),
            _ => String::new(),
        };
        format!(
            "Hand(value={}, category={:?}, cards={:?}{low})",
            self.inner.value,
            self.inner.category.name(),
            card_list(&self.inner.cards)
        )
    }
    fn __eq__(&self, other: &Bound<'_, PyAny>) -> bool {
        other.cast::<PyHand>().map(|o| o.get().inner == self.inner).unwrap_or(false)
    }
    fn __hash__(&self) -> u64 {
        use std::hash::{Hash, Hasher};
        let mut h = std::collections::hash_map::DefaultHasher::new();
        (self.inner.value, &self.inner.cards, self.inner.low, &self.inner.low_cards).hash(&mut h);
        h.finish()
    }
}

/// best_hand(variant, hole, board="") -> Hand.
#[pyfunction]
#[pyo3(signature = (variant, hole, board = None), text_signature = "(variant, hole, board='')")]
fn best_hand(variant: &Bound<'_, PyAny>, hole: &Bound<'_, PyAny>, board: Option<&Bound<'_, PyAny>>) -> PyResult<PyHand> {
    let v = variant_of(variant)?;
    let hole = cards_of(hole)?;
    let board = match board {
        Some(b) => cards_of(b)?,
        None => Vec::new(),
    };
    Ok(PyHand { inner: best(v, &hole, &board)? })
}

fn variant_of(obj: &Bound<'_, PyAny>) -> PyResult<Variant> {
    let s = obj.cast::<PyString>().map_err(|_| value_error("variant must be a string such as 'holdem'"))?;
    Ok(Variant::parse(&s.to_str()?)?)
}

/// How one pot was awarded.
#[pyclass(frozen, name = "PotResult", module = "native_eval._native")]
struct PyPotResult {
    inner: PotAward,
}

fn dict_of<'py>(py: Python<'py>, pairs: &[(i64, u64)]) -> PyResult<Bound<'py, PyDict>> {
    let d = PyDict::new(py);
    for &(s, a) in pairs {
        d.set_item(s, a)?;
    }
    Ok(d)
}

#[pymethods]
impl PyPotResult {
    #[getter]
    fn amount(&self) -> u64 {
        self.inner.amount
    }
    #[getter]
    fn eligible(&self) -> Vec<i64> {
        self.inner.eligible.clone()
    }
    #[getter]
    fn high_winners(&self) -> Vec<i64> {
        self.inner.high_winners.clone()
    }
    #[getter]
    fn low_winners(&self) -> Vec<i64> {
        self.inner.low_winners.clone()
    }
    #[getter]
    fn high_shares<'py>(&self, py: Python<'py>) -> PyResult<Bound<'py, PyDict>> {
        dict_of(py, &self.inner.high_shares)
    }
    #[getter]
    fn low_shares<'py>(&self, py: Python<'py>) -> PyResult<Bound<'py, PyDict>> {
        dict_of(py, &self.inner.low_shares)
    }
    #[getter]
    fn awards<'py>(&self, py: Python<'py>) -> PyResult<Bound<'py, PyDict>> {
        dict_of(py, &self.inner.awards)
    }
    fn __repr__(&self) -> String {
        format!(
            "PotResult(amount={}, eligible={:?}, high_winners={:?}, low_winners={:?}, awards={{{}}})",
            self.inner.amount,
            self.inner.eligible,
            self.inner.high_winners,
            self.inner.low_winners,
            self.inner.awards.iter().map(|(s, a)| format!("{s}: {a}")).collect::<Vec<_>>().join(", ")
        )
    }
}

/// The result of a showdown.
#[pyclass(frozen, name = "Showdown", module = "native_eval._native")]
struct PyShowdown {
    inner: ShowdownResult,
}

#[pymethods]
impl PyShowdown {
    #[getter]
    fn awards<'py>(&self, py: Python<'py>) -> PyResult<Bound<'py, PyDict>> {
        dict_of(py, &self.inner.awards)
    }
    #[getter]
    fn pots(&self) -> Vec<PyPotResult> {
        self.inner.pots.iter().map(|p| PyPotResult { inner: p.clone() }).collect()
    }
    fn __repr__(&self) -> String {
        format!(
            "Showdown(awards={{{}}}, pots={})",
            self.inner.awards.iter().map(|(s, a)| format!("{s}: {a}")).collect::<Vec<_>>().join(", "),
            self.inner.pots.len()
        )
    }
}

fn int_of(obj: &Bound<'_, PyAny>, what: &str) -> PyResult<i64> {
    if obj.is_exact_instance_of::<pyo3::types::PyInt>() {
        if let Ok(v) = obj.extract::<i64>() {
            return Ok(v);
        }
    }
    if obj.is_instance_of::<pyo3::types::PyBool>() {
        return Err(value_error(format!("{what} must be an int, got a bool")));
    }
    obj.extract::<i64>().map_err(|_| value_error(format!("{what} must be an int")))
}

/// showdown(variant, board, hands, pots, button) -> Showdown.
#[pyfunction]
fn showdown(
    variant: &Bound<'_, PyAny>,
    board: &Bound<'_, PyAny>,
    hands: &Bound<'_, PyAny>,
    pots: &Bound<'_, PyAny>,
    button: &Bound<'_, PyAny>,
) -> PyResult<PyShowdown> {
    let v = variant_of(variant)?;
    let button = int_of(button, "button")?;

    // All cards in one buffer; boards and hands are ranges of it.
    let mut cards: Vec<Card> = Vec::with_capacity(32);
    let mut board_ranges: Vec<(usize, usize)> = Vec::with_capacity(2);
    if v == Variant::DoubleFlop {
        let boards: Vec<Bound<'_, PyAny>> = if board.is_instance_of::<PyString>() {
            Vec::new()
        } else {
            board.try_iter().map_err(|_| value_error("double_flop: board must be a pair of boards"))?.collect::<PyResult<_>>()?
        };
        if boards.len() != 2 {
            return Err(value_error("double_flop: board must be a pair of boards, e.g. ('Ah Kd 7c 2s 3h', 'Qs Jd 9c 5h 4d')"));
        }
        for b in &boards {
            let start = cards.len();
            push_cards(b, &mut cards)?;
            board_ranges.push((start, cards.len()));
        }
    } else {
        let start = cards.len();
        push_cards(board, &mut cards)?;
        board_ranges.push((start, cards.len()));
    }

    let mut hand_ranges: Vec<(i64, usize, usize)> = Vec::with_capacity(10);
    let mut add_hand = |seat: &Bound<'_, PyAny>, hand: &Bound<'_, PyAny>, cards: &mut Vec<Card>| -> PyResult<()> {
        let seat = int_of(seat, "a seat")?;
        let start = cards.len();
        push_cards(hand, cards)?;
        hand_ranges.push((seat, start, cards.len()));
        Ok(())
    };
    if let Ok(d) = hands.cast::<PyDict>() {
        for (seat, hand) in d.iter() {
            add_hand(&seat, &hand, &mut cards)?;
        }
    } else {
        let items = hands
            .call_method0("items")
            .map_err(|_| value_error("hands must be a mapping of seat to cards"))?;
        for item in items.try_iter()? {
            let (seat, hand): (Bound<'_, PyAny>, Bound<'_, PyAny>) = item?.extract()?;
            add_hand(&seat, &hand, &mut cards)?;
        }
    }

    let mut specs: Vec<PotSpec> = Vec::new();
    let pot_iter = pots
        .try_iter()
        .map_err(|_| value_error("pots must be a list of (amount, eligible_seats)"))?;
    for (i, pot) in pot_iter.enumerate() {
        let pot = pot?;
        // Fast path for the usual (amount, [seats]) tuple; any 2-sequence works.
        let pair: Vec<Bound<'_, PyAny>> = if let Ok(t) = pot.cast::<PyTuple>() {
            t.iter().collect()
        } else if let Ok(l) = pot.cast::<PyList>() {
            l.iter().collect()
        } else if pot.is_instance_of::<PyString>() {
            Vec::new()
        } else {
            pot.try_iter().map(|it| it.collect::<PyResult<Vec<_>>>()).unwrap_or_else(|_| Ok(Vec::new()))?
        };
        if pair.len() != 2 {
            return Err(value_error(format!("pot {i} must be (amount, eligible_seats)")));
        }
        let amount = if let Ok(a) = pair[0].extract::<u64>() {
            if pair[0].is_instance_of::<pyo3::types::PyBool>() {
                return Err(value_error(format!("pot {i} amount must be an int")));
            }
            a
        } else {
            if pair[0].is_instance_of::<pyo3::types::PyBool>() || !pair[0].is_instance_of::<pyo3::types::PyInt>() {
                return Err(value_error(format!("pot {i} amount must be an int")));
            }
            let amount: i128 = pair[0]
                .extract()
                .map_err(|_| value_error(format!("pot {i} amount does not fit in 64 bits")))?;
            if amount < 0 {
                return Err(value_error(format!("pot {i} amount must not be negative, got {amount}")));
            }
            return Err(value_error(format!("pot {i} amount does not fit in 64 bits")));
        };
        let seat_of = |s: &Bound<'_, PyAny>| -> PyResult<i64> {
            if s.is_exact_instance_of::<pyo3::types::PyInt>() {
                if let Ok(v) = s.extract::<i64>() {
                    return Ok(v);
                }
            }
            int_of(s, &format!("pot {i}: a seat"))
        };
        let eligible: Vec<i64> = if let Ok(l) = pair[1].cast::<PyList>() {
            l.iter().map(|s| seat_of(&s)).collect::<PyResult<_>>()?
        } else if let Ok(t) = pair[1].cast::<PyTuple>() {
            t.iter().map(|s| seat_of(&s)).collect::<PyResult<_>>()?
        } else {
            pair[1]
                .try_iter()
                .map_err(|_| value_error(format!("pot {i}: eligible_seats must be a sequence of seats")))?
                .map(|s| s.and_then(|s| seat_of(&s)))
                .collect::<PyResult<_>>()?
        };
        specs.push(PotSpec { amount, eligible });
    }

    let boards: Vec<&[Card]> = board_ranges.iter().map(|&(a, b)| &cards[a..b]).collect();
    let boards: Vec<&[Card]> = if v.has_board() || v == Variant::DoubleFlop || !boards.iter().all(|b| b.is_empty()) {
        boards
    } else {
        Vec::new()
    };
    let hands: Vec<(i64, &[Card])> = hand_ranges.iter().map(|&(s, a, b)| (s, &cards[a..b])).collect();
    Ok(PyShowdown { inner: resolve(v, &boards, &hands, &specs, button)? })
}

#[pymodule]
fn _native(m: &Bound<'_, PyModule>) -> PyResult<()> {
    m.add("__version__", env!("CARGO_PKG_VERSION"))?;
    m.add("build_profile", if cfg!(debug_assertions) { "debug" } else { "release" })?;
    m.add("VARIANTS", PyTuple::new(m.py(), VARIANTS.iter().map(|(n, _)| *n))?)?;
    m.add_function(wrap_pyfunction!(evaluate, m)?)?;
    m.add_function(wrap_pyfunction!(category, m)?)?;
    m.add_function(wrap_pyfunction!(evaluate_front, m)?)?;
    m.add_function(wrap_pyfunction!(best_hand, m)?)?;
    m.add_function(wrap_pyfunction!(showdown, m)?)?;
    m.add_function(wrap_pyfunction!(evaluate_batch, m)?)?;
    m.add_function(wrap_pyfunction!(card_codes, m)?)?;
    m.add_function(wrap_pyfunction!(card_names, m)?)?;
    m.add_class::<PyHand>()?;
    m.add_class::<PyShowdown>()?;
    m.add_class::<PyPotResult>()?;
    Ok(())
}

//! The module's arguments read from Python, with errors in the caller's words: a wrong type is a
//! `TypeError`, a value out of range a `ValueError`, each naming the argument, saying what it
//! takes and what it got (`window must be a whole number of tokens greater than 0, got '8000' (a
//! str)`), never Python's conversion words (`'str' object cannot be interpreted as an integer`).
//! So the functions take their arguments as Python objects and read them here.

use pyo3::exceptions::{PyTypeError, PyValueError};
use pyo3::prelude::*;
use pyo3::types::{PyBool, PyFloat, PyInt, PyString};

/// An argument with a default: not given, or what was given (None included, which is not the
/// default and is read, and refused, like any other value).
pub enum Arg<'py> {
    /// Not given: the default.
    Absent,
    /// Given.
    Given(Bound<'py, PyAny>),
}

impl<'a, 'py> FromPyObject<'a, 'py> for Arg<'py> {
    type Error = PyErr;

    fn extract(obj: Borrowed<'a, 'py, PyAny>) -> PyResult<Self> {
        Ok(Arg::Given(obj.to_owned()))
    }
}

impl<'py> Arg<'py> {
    /// What was given, or `default` when nothing was.
    pub fn read<T>(&self, default: T, read: impl FnOnce(&Bound<'py, PyAny>) -> PyResult<T>) -> PyResult<T> {
        match self {
            Arg::Absent => Ok(default),
            Arg::Given(value) => read(value),
        }
    }
}

/// A value as an error shows it: its repr, shortened past 60 characters.
pub fn repr(value: &Bound<'_, PyAny>) -> String {
    let text = value
        .repr()
        .map_or_else(|_| "a value that has no repr".to_owned(), |r| r.to_string());
    match text.char_indices().nth(60) {
        Some((end, _)) => format!("{}…", &text[..end]),
        None => text,
    }
}

/// A value and its type, as a type error shows them: `'8000' (a str)`; `None` alone.
pub fn shown(value: &Bound<'_, PyAny>) -> String {
    if value.is_none() {
        return "None".to_owned();
    }
    let kind = value
        .get_type()
        .name()
        .map_or_else(|_| "value".to_owned(), |n| n.to_string());
    let article = if kind.starts_with(['a', 'e', 'i', 'o', 'u']) {
        "an"
    } else {
        "a"
    };
    format!("{} ({article} {kind})", repr(value))
}

/// `TypeError`: `{name} must be {takes}, got {value} ({its type})`.
pub fn wrong_type(name: &str, takes: &str, value: &Bound<'_, PyAny>) -> PyErr {
    PyTypeError::new_err(format!("{name} must be {takes}, got {}", shown(value)))
}

/// `ValueError`: `{name} must be {takes}, got {value}`.
pub fn out_of_range(name: &str, takes: &str, value: &Bound<'_, PyAny>) -> PyErr {
    PyValueError::new_err(format!("{name} must be {takes}, got {}", repr(value)))
}

/// A string argument: `text` of a `str`, a `TypeError` for anything else.
pub fn text(value: &Bound<'_, PyAny>, name: &str, takes: &str) -> PyResult<String> {
    match value.cast::<PyString>() {
        Ok(text) => Ok(text.to_cow()?.into_owned()),
        Err(_) => Err(wrong_type(name, takes, value)),
    }
}

/// A whole-number argument of at least `min`: an `int` (or an object that is one, through
/// `__index__`; never a bool or a float), a `ValueError` below `min` or past `u64`.
pub fn whole(value: &Bound<'_, PyAny>, name: &str, takes: &str, min: u64) -> PyResult<u64> {
    if value.is_instance_of::<PyBool>() || !(value.is_instance_of::<PyInt>() || value.hasattr("__index__")?) {
        return Err(wrong_type(name, takes, value));
    }
    let int = value.call_method0("__index__")?;
    match int.extract::<u64>() {
        Ok(n) if n >= min => Ok(n),
        Ok(_) => Err(out_of_range(name, takes, value)),
        Err(_) if int.lt(0)? => Err(out_of_range(name, takes, value)),
        Err(_) => Err(out_of_range(name, &format!("{takes}, at most {}", u64::MAX), value)),
    }
}

/// A real-number argument: an `int` or a `float` (or an object that converts, through
/// `__float__`; never a bool or a string); a `ValueError` for an `int` too large for a float.
/// The range is the caller's to check.
pub fn real(value: &Bound<'_, PyAny>, name: &str, takes: &str) -> PyResult<f64> {
    let number = value.is_instance_of::<PyFloat>()
        || value.is_instance_of::<PyInt>()
        || value.hasattr("__float__")?
        || value.hasattr("__index__")?;
    if value.is_instance_of::<PyBool>() || value.is_instance_of::<PyString>() || !number {
        return Err(wrong_type(name, takes, value));
    }
    value.extract::<f64>().map_err(|_| out_of_range(name, takes, value))
}

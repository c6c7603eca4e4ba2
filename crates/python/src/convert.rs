//! Python objects to JSON values and back: what a message dict may hold (str, int, float, bool,
//! None, dict with str keys, list, tuple) and nothing else. Key order is kept both ways (a
//! dict's order is the JSON text's), so counts over `JSON.stringify` lengths match the Rust
//! library's on the same messages. What cannot be read says where it is (`messages[3].content`):
//! the place is put together only on the way out of an error, so reading costs nothing for it.

use std::borrow::Cow;

use pyo3::exceptions::{PyTypeError, PyValueError};
use pyo3::prelude::*;
use pyo3::types::{PyBool, PyDict, PyFloat, PyInt, PyList, PyString, PyTuple};
use serde_json::{Map, Number, Value};

/// A string's UTF-8 text, borrowed from the string (CPython caches it there): no copy but the
/// one into the JSON value.
///
/// `PyUnicode_AsUTF8AndSize` joined the limited API in Python 3.10; the wheel targets 3.9 too,
/// where the interpreter exports the same function with the same signature (it has since 3.3),
/// so it is declared here rather than through pyo3's `to_str`, which under `abi3-py39` would
/// encode every string into a new bytes object first.
fn utf8<'a>(text: &'a Bound<'_, PyString>) -> PyResult<&'a str> {
    unsafe extern "C" {
        fn PyUnicode_AsUTF8AndSize(
            unicode: *mut pyo3::ffi::PyObject,
            size: *mut pyo3::ffi::Py_ssize_t,
        ) -> *const std::ffi::c_char;
    }
    let mut size: pyo3::ffi::Py_ssize_t = 0;
    // SAFETY: `text` is a live str object; the buffer returned belongs to it and lives as long
    // as it does, which the borrow of `text` bounds; CPython's UTF-8 is valid UTF-8.
    unsafe {
        let data = PyUnicode_AsUTF8AndSize(text.as_ptr(), &mut size);
        if data.is_null() {
            return Err(PyErr::fetch(text.py()));
        }
        let bytes = std::slice::from_raw_parts(data.cast::<u8>(), usize::try_from(size).unwrap_or(0));
        Ok(std::str::from_utf8_unchecked(bytes))
    }
}

/// Why a value could not be read, and where: the path from the value given to the one at fault,
/// innermost first as the error travels out.
pub struct Bad {
    path: Vec<Step>,
    error: Error,
}

enum Step {
    Key(String),
    Index(usize),
}

enum Error {
    /// Not JSON: a type error, with the words.
    Type(String),
    /// JSON's limits (a number too large, not finite): a value error.
    Value(String),
    /// What Python raised.
    Python(PyErr),
}

impl Bad {
    fn type_error(msg: String) -> Bad {
        Bad {
            path: Vec::new(),
            error: Error::Type(msg),
        }
    }

    fn value_error(msg: String) -> Bad {
        Bad {
            path: Vec::new(),
            error: Error::Value(msg),
        }
    }

    fn at(mut self, step: Step) -> Bad {
        self.path.push(step);
        self
    }

    /// The Python exception, its place spelt from `root` (`messages[3].content`).
    pub fn into_err(self, root: &str) -> PyErr {
        let mut at = root.to_owned();
        for step in self.path.iter().rev() {
            match step {
                Step::Key(k) => {
                    at.push('.');
                    at.push_str(k);
                }
                Step::Index(i) => at.push_str(&format!("[{i}]")),
            }
        }
        match self.error {
            Error::Type(msg) => PyTypeError::new_err(format!("{at}: {msg}")),
            Error::Value(msg) => PyValueError::new_err(format!("{at}: {msg}")),
            Error::Python(e) => e,
        }
    }
}

impl From<PyErr> for Bad {
    fn from(e: PyErr) -> Bad {
        Bad {
            path: Vec::new(),
            error: Error::Python(e),
        }
    }
}

/// Calls `each` with every key and value of `dict`, in order, borrowed: no reference counted
/// up and down for each of them, as pyo3's iterator does.
fn for_each_item<'py>(
    dict: &Bound<'py, PyDict>,
    mut each: impl FnMut(&Bound<'py, PyAny>, &Bound<'py, PyAny>) -> Result<(), Bad>,
) -> Result<(), Bad> {
    let py = dict.py();
    let mut pos: pyo3::ffi::Py_ssize_t = 0;
    let mut key: *mut pyo3::ffi::PyObject = std::ptr::null_mut();
    let mut value: *mut pyo3::ffi::PyObject = std::ptr::null_mut();
    // SAFETY: `dict` is a live dict held by the caller; PyDict_Next hands out borrowed references
    // that live as long as the dict holds them, which is the whole loop: no Python code runs in
    // it (the conversion reads strings, numbers and containers, and calls nothing of the user's),
    // so nothing can change the dict.
    unsafe {
        while pyo3::ffi::PyDict_Next(dict.as_ptr(), &mut pos, &mut key, &mut value) != 0 {
            let key = pyo3::Borrowed::from_ptr(py, key);
            let value = pyo3::Borrowed::from_ptr(py, value);
            each(&key, &value)?;
        }
    }
    Ok(())
}

/// A tool call's id, function name and arguments.
pub type CallParts = (String, String, String);

/// A message's fields as read, in order.
pub type Entries = Vec<(Cow<'static, str>, Value)>;

/// A message dict's entries, in order (what `Message::from_entries` reads), the names a message
/// knows not copied; and its tool calls when each is written canonically (`{"id", "type":
/// "function", "function": {"name", "arguments"}}`), read straight into their strings, their
/// entry a `null` in the field's place for `Message::set_tool_calls` to fill.
pub fn to_entries(obj: &Bound<'_, PyAny>) -> Result<(Entries, Option<Vec<CallParts>>), Bad> {
    let Ok(dict) = obj.cast::<PyDict>() else {
        return Err(Bad::type_error(format!(
            "a message is a dict, not a {} (convert your framework's messages first, or use ctxbench.integrations)",
            type_name(obj)
        )));
    };
    let mut entries = Vec::with_capacity(dict.len());
    let mut calls = None;
    for_each_item(dict, |key, value| {
        let key = key_of(key)?;
        if key == "tool_calls" && calls.is_none() {
            if let Some(canonical) = canonical_calls(value)? {
                calls = Some(canonical);
                entries.push((Cow::Borrowed("tool_calls"), Value::Null));
                return Ok(());
            }
        }
        let value = to_value(value).map_err(|bad| bad.at(Step::Key(key.to_owned())))?;
        let name = match key {
            "role" => Cow::Borrowed("role"),
            "content" => Cow::Borrowed("content"),
            "tool_calls" => Cow::Borrowed("tool_calls"),
            "tool_call_id" => Cow::Borrowed("tool_call_id"),
            "name" => Cow::Borrowed("name"),
            other => Cow::Owned(other.to_owned()),
        };
        entries.push((name, value));
        Ok(())
    })?;
    Ok((entries, calls))
}

/// A `tool_calls` list whose every call is written canonically, as its calls' strings; `None`
/// for any other value (read as JSON then, and checked by the library).
fn canonical_calls(value: &Bound<'_, PyAny>) -> Result<Option<Vec<CallParts>>, Bad> {
    let Ok(list) = value.cast_exact::<PyList>() else {
        return Ok(None);
    };
    if list.is_empty() {
        return Ok(None);
    }
    let mut calls = Vec::with_capacity(list.len());
    for call in list.iter() {
        let Ok(call) = call.cast_exact::<PyDict>() else {
            return Ok(None);
        };
        let Some([id, kind, function]) = fields(call, ["id", "type", "function"])? else {
            return Ok(None);
        };
        let (Ok(id), Ok(kind), Ok(function)) = (
            id.cast_exact::<PyString>(),
            kind.cast_exact::<PyString>(),
            function.cast_exact::<PyDict>(),
        ) else {
            return Ok(None);
        };
        if utf8(kind)? != "function" {
            return Ok(None);
        }
        let Some([name, arguments]) = fields(function, ["name", "arguments"])? else {
            return Ok(None);
        };
        let (Ok(name), Ok(arguments)) = (name.cast_exact::<PyString>(), arguments.cast_exact::<PyString>()) else {
            return Ok(None);
        };
        calls.push((
            utf8(id)?.to_owned(),
            utf8(name)?.to_owned(),
            utf8(arguments)?.to_owned(),
        ));
    }
    Ok(Some(calls))
}

/// A dict's values when its keys are exactly `names`, in that order.
fn fields<'py, const N: usize>(
    dict: &Bound<'py, PyDict>,
    names: [&str; N],
) -> Result<Option<[Bound<'py, PyAny>; N]>, Bad> {
    if dict.len() != N {
        return Ok(None);
    }
    let mut found = Vec::with_capacity(N);
    let mut in_order = true;
    for_each_item(dict, |key, value| {
        let name = match key.cast_exact::<PyString>() {
            Ok(key) => Some(utf8(key)?),
            Err(_) => None,
        };
        in_order &= name == Some(names[found.len()]);
        found.push(value.clone());
        Ok(())
    })?;
    Ok(if in_order { found.try_into().ok() } else { None })
}

fn key_of<'a>(key: &'a Bound<'_, PyAny>) -> Result<&'a str, Bad> {
    match key.cast::<PyString>() {
        Ok(key) => Ok(utf8(key)?),
        Err(_) => Err(Bad::type_error(format!(
            "a key that is not a string ({}); JSON keys are strings",
            type_name(key)
        ))),
    }
}

/// A Python object as a JSON value.
pub fn to_value(obj: &Bound<'_, PyAny>) -> Result<Value, Bad> {
    if let Ok(text) = obj.cast_exact::<PyString>() {
        return Ok(Value::String(utf8(text)?.to_owned()));
    }
    if let Ok(dict) = obj.cast::<PyDict>() {
        let mut map = Map::with_capacity(dict.len());
        for_each_item(dict, |key, value| {
            let key = key_of(key)?;
            let value = to_value(value).map_err(|bad| bad.at(Step::Key(key.to_owned())))?;
            map.insert(key.to_owned(), value);
            Ok(())
        })?;
        return Ok(Value::Object(map));
    }
    if obj.is_none() {
        return Ok(Value::Null);
    }
    if let Ok(list) = obj.cast::<PyList>() {
        return items(list.iter(), list.len());
    }
    if let Ok(flag) = obj.cast::<PyBool>() {
        return Ok(Value::Bool(flag.is_true()));
    }
    if obj.cast::<PyInt>().is_ok() {
        if let Ok(n) = obj.extract::<i64>() {
            return Ok(Value::from(n));
        }
        if let Ok(n) = obj.extract::<u64>() {
            return Ok(Value::from(n));
        }
        return Err(Bad::value_error("an integer too large for JSON".into()));
    }
    if let Ok(x) = obj.cast::<PyFloat>() {
        return Number::from_f64(x.value())
            .map(Value::Number)
            .ok_or_else(|| Bad::value_error(format!("{} is not a JSON number", x.value())));
    }
    if let Ok(text) = obj.cast::<PyString>() {
        return Ok(Value::String(utf8(text)?.to_owned()));
    }
    if let Ok(tuple) = obj.cast::<PyTuple>() {
        return items(tuple.iter(), tuple.len());
    }
    Err(Bad::type_error(format!(
        "a value of type `{}` is not JSON; a message holds dicts, lists, strings, numbers, booleans and None \
         (convert your framework's objects first, or use ctxbench.integrations)",
        type_name(obj)
    )))
}

fn items<'py>(iter: impl Iterator<Item = Bound<'py, PyAny>>, len: usize) -> Result<Value, Bad> {
    let mut out = Vec::with_capacity(len);
    for (i, item) in iter.enumerate() {
        out.push(to_value(&item).map_err(|bad| bad.at(Step::Index(i)))?);
    }
    Ok(Value::Array(out))
}

fn type_name(obj: &Bound<'_, PyAny>) -> String {
    obj.get_type()
        .name()
        .map_or_else(|_| "value".to_owned(), |n| n.to_string())
}

/// A JSON value as a Python object: dicts, lists, str, int, float, bool, None.
pub fn to_python<'py>(py: Python<'py>, value: &Value) -> PyResult<Bound<'py, PyAny>> {
    Ok(match value {
        Value::Null => py.None().into_bound(py),
        Value::Bool(b) => PyBool::new(py, *b).to_owned().into_any(),
        Value::Number(n) => match (n.as_i64(), n.as_u64()) {
            (Some(i), _) => i.into_pyobject(py)?.into_any(),
            (None, Some(u)) => u.into_pyobject(py)?.into_any(),
            _ => PyFloat::new(py, n.as_f64().unwrap_or(f64::NAN)).into_any(),
        },
        Value::String(s) => PyString::new(py, s).into_any(),
        Value::Array(items) => {
            let list = PyList::empty(py);
            for item in items {
                list.append(to_python(py, item)?)?;
            }
            list.into_any()
        }
        Value::Object(map) => {
            let dict = PyDict::new(py);
            for (k, v) in map {
                dict.set_item(k, to_python(py, v)?)?;
            }
            dict.into_any()
        }
    })
}

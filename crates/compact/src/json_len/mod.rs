//! Lengths of text and JSON as the reference listings (TypeScript and Python) measure them, without building the text.
//!
//! [`js_len`] is `JSON.stringify(value).length`: compact separators, UTF-16 code units, only `"`,
//! `\` and control characters escaped. [`py_len`] is `len(json.dumps(value))` with Python's
//! defaults: `", "` and `": "` separators and `ensure_ascii`, which escapes everything outside
//! `' '..='~'` (U+007F included) as `\uXXXX`, astral characters as two of them.
//! Numbers follow each language's shortest round-trip formatting rules.

mod weigh;

use serde_json::{Map, Number, Value};

#[cfg(test)]
use weigh::weigh2_lanes;
use weigh::{weigh, weigh2};

/// `JSON.stringify(value).length` in UTF-16 code units.
#[cfg(test)]
pub(crate) fn js_len(value: &Value) -> u64 {
    len(value, &JS)
}

/// `len(json.dumps(value))` in code points, with Python's default arguments.
#[cfg(test)]
pub(crate) fn py_len(value: &Value) -> u64 {
    len(value, &PY)
}

/// [`js_len`] of an object, without wrapping it in a `Value`.
#[cfg(test)]
pub(crate) fn js_object_len(map: &Map<String, Value>) -> u64 {
    object_len(map, &JS)
}

/// [`py_len`] of an object, without wrapping it in a `Value`.
#[cfg(test)]
pub(crate) fn py_object_len(map: &Map<String, Value>) -> u64 {
    object_len(map, &PY)
}

/// A UTF-8 continuation byte (`0x80..=0xbf`): part of a character already counted.
fn continuation(b: u8) -> bool {
    (b as i8) < -64
}

/// Length of `s` in UTF-16 code units (JavaScript's `.length`), from its bytes: a lead byte of a
/// four-byte sequence is two units, continuation bytes none, any other byte one.
pub(crate) fn utf16_len(s: &str) -> u64 {
    weigh(s.as_bytes(), utf16_weight)
}

fn utf16_weight(b: u8) -> u8 {
    u8::from(!continuation(b)) + u8::from(b >= 0xf0)
}

/// Length of `s` in code points (Python's `len`).
pub(crate) fn code_points(s: &str) -> u64 {
    weigh(s.as_bytes(), code_point_weight)
}

fn code_point_weight(b: u8) -> u8 {
    u8::from(!continuation(b))
}

/// How one language writes JSON: separators, strings, floats.
pub(crate) struct Dialect {
    /// Separator between items.
    pub(crate) item_sep: u64,
    /// Separator between a key and its value.
    pub(crate) key_sep: u64,
    /// A string's JSON length.
    pub(crate) string: fn(&str) -> u64,
    /// The string's length and its length in this dialect's characters (UTF-16 units, code
    /// points), in one pass.
    pub(crate) string_and_chars: fn(&str) -> (u64, u64),
    /// A float's length.
    pub(crate) float: fn(f64) -> u64,
}

/// `JSON.stringify`.
pub(crate) const JS: Dialect = Dialect {
    item_sep: 1,
    key_sep: 1,
    string: js_string_len,
    string_and_chars: js_string_and_utf16_len,
    float: js_float_len,
};
/// `json.dumps` with its defaults.
pub(crate) const PY: Dialect = Dialect {
    item_sep: 2,
    key_sep: 2,
    string: py_string_len,
    string_and_chars: py_string_and_code_points,
    float: py_float_len,
};

/// The length of `value` written in dialect `d`.
pub(crate) fn len(value: &Value, d: &Dialect) -> u64 {
    match value {
        Value::Null => 4,
        Value::Bool(true) => 4,
        Value::Bool(false) => 5,
        Value::Number(n) => number_len(n, d),
        Value::String(s) => (d.string)(s),
        Value::Array(items) => {
            let inner: u64 = items.iter().map(|v| len(v, d)).sum();
            2 + inner + d.item_sep * (items.len().saturating_sub(1) as u64)
        }
        Value::Object(map) => object_len(map, d),
    }
}

/// The JSON length of a string known to be plain ASCII with nothing to escape (a key ctxbench
/// writes): the same in both dialects.
pub(crate) fn plain_len(s: &str) -> u64 {
    debug_assert!(s.bytes().all(|b| b.is_ascii_graphic() && b != b'"' && b != b'\\'));
    s.len() as u64 + 2
}

fn object_len(map: &Map<String, Value>, d: &Dialect) -> u64 {
    let inner: u64 = map.iter().map(|(k, v)| (d.string)(k) + d.key_sep + len(v, d)).sum();
    2 + inner + d.item_sep * (map.len().saturating_sub(1) as u64)
}

fn number_len(n: &Number, d: &Dialect) -> u64 {
    if let Some(i) = n.as_i64() {
        decimal_len(i.unsigned_abs()) + u64::from(i < 0)
    } else if let Some(u) = n.as_u64() {
        decimal_len(u)
    } else {
        (d.float)(n.as_f64().unwrap_or(0.0))
    }
}

fn decimal_len(mut n: u64) -> u64 {
    let mut digits = 1;
    while n >= 10 {
        n /= 10;
        digits += 1;
    }
    digits
}

/// `JSON.stringify(s).length`: the quotes, each UTF-16 unit, one more for `"`, `\\` and the
/// short escapes (`\b \f \n \r \t`), five more for the other control characters (`\u00XX`).
pub(crate) fn js_string_len(s: &str) -> u64 {
    2 + weigh(s.as_bytes(), js_weight)
}

fn js_weight(b: u8) -> u8 {
    utf16_weight(b) + escape(b)
}

/// As [`js_string_len`] with `json.dumps`'s ASCII escapes: every non-ASCII character is `\uXXXX`
/// (6 characters), astral ones two of them (12), and DEL is `\u007f`.
pub(crate) fn py_string_len(s: &str) -> u64 {
    2 + weigh(s.as_bytes(), py_weight)
}

fn py_weight(b: u8) -> u8 {
    u8::from(b < 0x80) + times(6, b >= 0xc0) + times(6, b >= 0xf0) + escape(b) + times(5, b == 0x7f)
}

/// `n` if `yes`, else 0, as a mask: SSE2 has no 8-bit multiply.
fn times(n: u8, yes: bool) -> u8 {
    0u8.wrapping_sub(u8::from(yes)) & n
}

/// [`js_string_len`] and [`utf16_len`] of `s` in one pass over memory: the escapes and the
/// UTF-16 units are summed apart, and the string's length is their sum.
fn js_string_and_utf16_len(s: &str) -> (u64, u64) {
    let (units, escapes) = weigh2(s.as_bytes(), utf16_weight, escape);
    (2 + units + escapes, units)
}

/// [`py_string_len`] and [`code_points`] of `s`, as [`js_string_and_utf16_len`].
fn py_string_and_code_points(s: &str) -> (u64, u64) {
    let (points, more) = weigh2(s.as_bytes(), code_point_weight, py_more);
    (2 + points + more, points)
}

/// What `json.dumps` writes for a byte beyond its one code point: [`py_weight`] less
/// [`code_point_weight`].
fn py_more(b: u8) -> u8 {
    escape(b) + times(5, b >= 0xc0) + times(6, b >= 0xf0) + times(5, b == 0x7f)
}

/// What escaping an ASCII byte adds to its one character.
fn escape(b: u8) -> u8 {
    // Control characters are written `\uXXXX`, but for the short escapes `\b \t \n \f \r`:
    // bytes 8 to 13, 11 excepted.
    let control = b < 0x20;
    let short = b.wrapping_sub(8) < 6 && b != 11;
    u8::from(b == b'"') + u8::from(b == b'\\') + u8::from(control) + times(4, control && !short)
}

/// The shortest round-trip digits of a finite, non-zero `x` and the position of the decimal
/// point relative to them (`x = 0.d1d2… × 10^point`).
fn digits_and_point(x: f64) -> (u64, i64) {
    let sci = format!("{:e}", x.abs());
    let (mantissa, exponent) = sci.split_once('e').unwrap_or((&sci, "0"));
    let digits = mantissa.bytes().filter(u8::is_ascii_digit).count() as u64;
    (digits, exponent.parse::<i64>().unwrap_or(0) + 1)
}

fn exponent_len(e: i64, min_digits: u64) -> u64 {
    decimal_len(e.unsigned_abs()).max(min_digits)
}

/// `Number.prototype.toString` (ECMA-262 Number::toString, radix 10).
fn js_float_len(x: f64) -> u64 {
    let sign = u64::from(x < 0.0);
    if x == 0.0 {
        return 1;
    }
    let (k, n) = digits_and_point(x);
    let body = if (k as i64) <= n && n <= 21 {
        n as u64
    } else if 0 < n && n <= 21 {
        k + 1
    } else if -6 < n && n <= 0 {
        2 + n.unsigned_abs() + k
    } else {
        let mantissa = if k == 1 { 1 } else { k + 1 };
        mantissa + 2 + exponent_len(n - 1, 1)
    };
    sign + body
}

/// Python's `float.__repr__`: fixed notation with at least one decimal, unless the point is more
/// than 16 places left or 4 right of the digits, then `d.ddde±XX`.
fn py_float_len(x: f64) -> u64 {
    let sign = u64::from(x.is_sign_negative());
    if x == 0.0 {
        return sign + 3;
    }
    let (k, n) = digits_and_point(x);
    let body = if -4 < n && n <= 16 {
        if n <= 0 {
            2 + n.unsigned_abs() + k
        } else if (k as i64) <= n {
            n as u64 + 2
        } else {
            k + 1
        }
    } else {
        let mantissa = if k == 1 { 1 } else { k + 1 };
        mantissa + 2 + exponent_len(n - 1, 2)
    };
    sign + body
}

#[cfg(test)]
mod tests {
    use super::*;
    use serde_json::json;

    #[test]
    fn js_lengths_match_json_stringify() {
        // Expected values are JSON.stringify(v).length as printed by Node.
        let check = |v: Value, expect: u64| assert_eq!(js_len(&v), expect, "{v}");
        check(json!({"role": "user", "content": "hi"}), 30);
        check(json!({"a": null, "b": [true, false, 1, -20]}), 33);
        check(json!("é😀\n\u{1}\"/"), 16);
        check(json!([]), 2);
        check(json!(1.5), 3);
        check(json!(1e21), 5);
        check(json!(1e20), 21);
        check(json!(1.25e-7), 7);
        check(json!(0.000001), 8);
        check(json!(-123.456), 8);
    }

    /// The lengths by their definitions, one character at a time.
    fn js_reference(s: &str) -> u64 {
        serde_json::to_string(s)
            .expect("a string serialises")
            .encode_utf16()
            .count() as u64
    }

    fn py_reference(s: &str) -> u64 {
        2 + s
            .chars()
            .map(|c| match c {
                '"' | '\\' | '\u{8}' | '\u{c}' | '\n' | '\r' | '\t' => 2,
                ' '..='~' => 1,
                c if (c as u32) < 0x10000 => 6,
                _ => 12,
            })
            .sum::<u64>()
    }

    proptest::proptest! {
        #![proptest_config(proptest::prelude::ProptestConfig {
            failure_persistence: None,
            ..proptest::prelude::ProptestConfig::default()
        })]

        #[test]
        fn string_lengths_agree_with_their_definitions(
            s in proptest::string::string_regex("(.|[\\x00-\\x1f\\x7f\"\\\\]){0,300}").expect("a regex"),
            repeat in 1usize..40,
        ) {
            // Long strings cross the 672-byte groups the sums are made in.
            let s = s.repeat(repeat);
            proptest::prop_assert_eq!(js_string_len(&s), js_reference(&s));
            proptest::prop_assert_eq!(py_string_len(&s), py_reference(&s));
            proptest::prop_assert_eq!(utf16_len(&s), s.encode_utf16().count() as u64);
            proptest::prop_assert_eq!(code_points(&s), s.chars().count() as u64);
            proptest::prop_assert_eq!(js_string_and_utf16_len(&s), (js_reference(&s), utf16_len(&s)));
            proptest::prop_assert_eq!(py_string_and_code_points(&s), (py_reference(&s), code_points(&s)));
            // The sums for CPUs without AVX2, whichever this one has.
            proptest::prop_assert_eq!(
                weigh2_lanes(s.as_bytes(), py_weight, escape),
                weigh2(s.as_bytes(), py_weight, escape)
            );
        }
    }

    #[test]
    fn the_heaviest_bytes_do_not_overflow_their_lanes() {
        // Each weighs the most some sum gives a byte: kept in 8-bit lanes for 21 blocks.
        for s in [
            "\u{1}".repeat(5000),
            "😀".repeat(5000),
            "\u{7f}".repeat(5000),
            "\"".repeat(5000),
        ] {
            assert_eq!(
                js_string_and_utf16_len(&s),
                (js_reference(&s), s.encode_utf16().count() as u64)
            );
            assert_eq!(
                py_string_and_code_points(&s),
                (py_reference(&s), s.chars().count() as u64)
            );
        }
    }

    #[test]
    fn py_lengths_match_json_dumps() {
        // Expected values are len(json.dumps(v)) as printed by CPython 3.11.
        let check = |v: Value, expect: u64| assert_eq!(py_len(&v), expect, "{v}");
        check(json!({"role": "user", "content": "hi"}), 33);
        check(json!({"a": null, "b": [true, false, 1, -20]}), 39);
        check(json!("é😀\n\u{1}\"/\u{7f}"), 37);
        check(json!({}), 2);
        check(json!(1.5), 3);
        check(json!(1e16), 5);
        check(json!(1e15), 18);
        check(json!(0.0001), 6);
        check(json!(0.00001), 5);
        check(json!(-123.456), 8);
        check(json!(1.0), 3);
    }
}

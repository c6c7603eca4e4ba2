//! Tests of the message: round trips in every storage shape, accessors, validation.

use serde_json::json;

use super::*;

fn round_trip(text: &str) -> String {
    let m: Message = serde_json::from_str(text).expect("valid message");
    serde_json::to_string(&m).expect("serializes")
}

#[test]
fn round_trip_is_verbatim() {
    for text in [
        r#"{"content":"hi","role":"user","x-extra":{"a":[1,2]}}"#,
        r#"{"role":"assistant","content":null,"tool_calls":[{"id":"c1","type":"function","function":{"name":"f","arguments":"{ \"a\" : 1 }"}}]}"#,
        r#"{"role":"assistant","tool_calls":null}"#,
        r#"{"role":"tool","tool_call_id":"c1","name":"f","content":""}"#,
        r#"{"role":"user","content":[{"type":"text","text":"a"},{"type":"image_url"}]}"#,
    ] {
        assert_eq!(round_trip(text), text);
    }
    // Calls in other shapes than the canonical one are kept as they came.
    for text in SHAPES {
        assert_eq!(round_trip(text), *text);
        let m: Message = serde_json::from_str(text).expect("valid");
        let back = Message::from_value(m.clone().into_value()).expect("valid");
        assert_eq!(back, m);
    }
}

/// Messages in every storage shape: canonical calls, calls with their keys reordered, with an
/// extra field, with another type, an empty list, unknown fields, escapes and astral text.
pub(crate) const SHAPES: &[&str] = &[
    r#"{"role":"assistant","content":"ok","tool_calls":[{"id":"a","type":"function","function":{"name":"f","arguments":"{}"}},{"id":"b","type":"function","function":{"name":"g","arguments":"\"\n"}}]}"#,
    r#"{"role":"assistant","tool_calls":[{"type":"function","id":"a","function":{"name":"f","arguments":"{}"}}]}"#,
    r#"{"role":"assistant","tool_calls":[{"id":"a","type":"function","function":{"name":"f","arguments":"{}"},"index":0}]}"#,
    r#"{"role":"assistant","tool_calls":[{"id":"a","type":"custom","function":{"name":"f","arguments":"{}"}}]}"#,
    r#"{"role":"assistant","tool_calls":[{"id":"a","type":"function","function":{"arguments":"{}","name":"f"}}]}"#,
    r#"{"role":"assistant","content":null,"tool_calls":[]}"#,
    r#"{"tool_call_id":"a","content":"é😀\u0001\t\"","role":"tool","x":[1,2.5,{"y":null}]}"#,
    r#"{"name":"ann","role":"developer","content":"ü~"}"#,
];

#[test]
fn calls_read_the_same_in_every_shape() {
    for text in SHAPES {
        let m: Message = serde_json::from_str(text).expect("valid");
        let value: Value = serde_json::from_str(text).expect("json");
        let expect: Vec<(String, String, String)> = value["tool_calls"]
            .as_array()
            .into_iter()
            .flatten()
            .map(|c| {
                let s = |v: &Value| v.as_str().expect("string").to_owned();
                (s(&c["id"]), s(&c["function"]["name"]), s(&c["function"]["arguments"]))
            })
            .collect();
        let got: Vec<(String, String, String)> = m
            .calls()
            .map(|c| (c.id.to_owned(), c.name.to_owned(), c.arguments.to_owned()))
            .collect();
        assert_eq!(got, expect, "{text}");
    }
}

#[test]
fn equality_ignores_key_order_only() {
    let a = Message::from_value(json!({"role": "tool", "tool_call_id": "a", "content": "x"})).expect("valid");
    let b = Message::from_value(json!({"content": "x", "role": "tool", "tool_call_id": "a"})).expect("valid");
    let c = Message::from_value(json!({"role": "tool", "tool_call_id": "a", "content": "y"})).expect("valid");
    assert_eq!(a, b);
    assert_ne!(a, c);
    assert_eq!(a, Message::tool_result("a", "x"));
}

#[test]
fn text_of_parts_is_their_concatenation() {
    let m = Message::from_value(json!({"role": "user", "content": [
        {"type": "text", "text": "ab"}, {"type": "image_url", "image_url": {}}, {"type": "text", "text": "c"}
    ]}))
    .expect("valid");
    assert_eq!(m.text(), "abc");
}

#[test]
fn rejects_what_no_api_accepts() {
    let check = |value: Value, expect: &str| {
        let err = Message::from_value(value).expect_err("invalid");
        assert_eq!(err.to_string(), expect);
    };
    check(
        json!({"role": "robot"}),
        "role: unknown role \"robot\"; expected system, developer, user, assistant or tool",
    );
    check(json!({"content": "x"}), "missing \"role\"");
    check(
        json!({"role": "tool", "content": "x"}),
        "tool_call_id: a tool result needs a string \"tool_call_id\"",
    );
    check(
        json!({"role": "assistant", "tool_calls": [{"id": "a", "function": {"name": "f", "arguments": {}}}]}),
        "tool_calls[0].function.arguments: expected a string, found an object",
    );
    check(
        json!({"role": "user", "content": 3}),
        "content: expected a string, null or an array of parts, found a number",
    );
    check(json!([1]), "expected a JSON object, found an array");
}

#[test]
fn content_reads_and_writes_the_same_whichever_way_it_is_set() {
    let mut a = Message::tool_result("a", "old");
    let mut b = a.clone();
    a.set_content("new".into());
    let old = b.replace_content(json!("new"));
    assert_eq!(old, Some(json!("old")));
    assert_eq!(a, b);
    assert_eq!(a.content().as_deref(), Some(&json!("new")));
    assert_eq!(a.content_str(), Some("new"));
    b.restore_content(old);
    assert_eq!(b, Message::tool_result("a", "old"));
    let parts = json!([{"type": "text", "text": "p"}]);
    b.replace_content(parts.clone());
    assert_eq!((b.content().as_deref(), b.content_str()), (Some(&parts), None));
    b.restore_content(None);
    assert_eq!((b.content(), b.text()), (None, "".into()));
}

/// A history is read field by field in every pass: a field is kept to 56 bytes (a `Value` alone
/// is 72), strings stored as `String`, anything rarer boxed.
#[test]
fn a_field_stays_small() {
    assert!(std::mem::size_of::<(fields::Key, Slot)>() <= 56);
}

#[test]
fn content_checks_agree_with_content() {
    let shapes = [
        Message::tool_result("a", "x"),
        Message::tool_result_as("a", None, None),
        Message::assistant_calls([]),
        Message::from_value(json!({"role": "user", "content": [{"type": "text", "text": "x"}]})).expect("valid"),
        Message::from_value(json!({"role": "user"})).expect("valid"),
    ];
    for a in &shapes {
        assert_eq!(a.content_is_null(), a.content().is_none_or(|c| c.is_null()), "{a:?}");
        for b in &shapes {
            assert_eq!(a.same_content(b), a.content() == b.content(), "{a:?} {b:?}");
        }
    }
}

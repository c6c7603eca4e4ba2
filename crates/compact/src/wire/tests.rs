use serde_json::json;

use super::*;

#[test]
fn formats_are_named_and_detected() {
    for format in Format::ALL {
        assert_eq!(Format::parse(format.as_str()), Some(format));
    }
    assert_eq!(Format::parse("openai"), None);
    let cases = [
        (json!({"messages": [{"role": "user", "content": "hi"}]}), Format::Chat),
        (
            json!({"system": "s", "messages": [{"role": "user", "content": "hi"}]}),
            Format::Anthropic,
        ),
        (
            json!({"messages": [{"role": "user", "content": [{"type": "tool_result", "tool_use_id": "t"}]}]}),
            Format::Anthropic,
        ),
        (json!({"input": "hi"}), Format::Responses),
        (
            json!([{"type": "function_call", "call_id": "c", "name": "f", "arguments": "{}"}]),
            Format::Responses,
        ),
        (json!([{"role": "user", "content": "hi"}]), Format::Chat),
    ];
    for (body, format) in cases {
        assert_eq!(Format::detect(&body), format, "{body}");
    }
    assert!(Format::Anthropic.counts_approximate() && !Format::Responses.counts_approximate());
}

use serde_json::{Value, json};

use super::*;

/// Replies of each format with text, calls and (Anthropic) thinking, some text longer than a
/// piece and not ASCII, arguments with nested JSON, and ctxbench's own usage fields.
fn replies() -> Vec<(Format, Value)> {
    let text = "Sorry about the bent wheel — let me look up order #4471 and its return window.";
    let arguments = r#"{"order_id":"4471","reason":"bent wheel","items":[{"sku":"W-1","qty":1}]}"#;
    vec![
        (
            Format::Chat,
            json!({"id": "chatcmpl-ctxbench-3", "object": "chat.completion", "created": 0, "model": "m",
                   "choices": [{"index": 0, "message": {"role": "assistant", "content": text,
                       "tool_calls": [
                           {"id": "call_1", "type": "function", "function": {"name": "get_order", "arguments": arguments}},
                           {"id": "call_2", "type": "function", "function": {"name": "noop", "arguments": "{}"}}]},
                       "finish_reason": "tool_calls"}],
                   "usage": {"prompt_tokens": 120, "completion_tokens": 30, "total_tokens": 150,
                             "prompt_tokens_details": {"cached_tokens": 64}, "ctxbench_step": [1, 2],
                             "ctxbench_facts_lost": ["order"]}}),
        ),
        (
            Format::Chat,
            json!({"id": "chatcmpl-ctxbench-4", "object": "chat.completion", "created": 0, "model": "m",
                   "choices": [{"index": 0, "message": {"role": "assistant", "content": null,
                       "tool_calls": [{"id": "call_9", "type": "function", "function": {"name": "x", "arguments": arguments}}]},
                       "finish_reason": "tool_calls"}],
                   "usage": {"prompt_tokens": 1, "completion_tokens": 2, "total_tokens": 3}}),
        ),
        (
            Format::Anthropic,
            json!({"id": "msg_ctxbench_2", "type": "message", "role": "assistant", "model": "m",
                   "content": [
                       {"type": "thinking", "thinking": "The customer wants a return; check the order first.", "signature": "c2lnbmVk"},
                       {"type": "text", "text": text},
                       {"type": "tool_use", "id": "toolu_1", "name": "get_order", "input": {"order_id": "4471", "items": [{"sku": "W-1"}]}},
                       {"type": "redacted_thinking", "data": "ZW5jcnlwdGVk"}],
                   "stop_reason": "tool_use", "stop_sequence": null,
                   "usage": {"input_tokens": 10, "cache_creation_input_tokens": 20, "cache_read_input_tokens": 30,
                             "output_tokens": 40, "ctxbench_latency_s": 1.25, "ctxbench_facts_needed": []}}),
        ),
        (
            Format::Responses,
            json!({"id": "resp_ctxbench_5", "object": "response", "created_at": 0, "status": "completed", "model": "m",
                   "output": [
                       {"id": "rs_1", "type": "reasoning", "summary": [], "encrypted_content": "b3BhcXVl"},
                       {"id": "msg_ctxbench_5_0", "type": "message", "role": "assistant",
                        "content": [{"type": "output_text", "text": text, "annotations": []}], "status": "completed"},
                       {"id": "fc_ctxbench_5_1", "type": "function_call", "call_id": "call_1", "name": "get_order",
                        "arguments": arguments, "status": "completed"}],
                   "usage": {"input_tokens": 100, "input_tokens_details": {"cached_tokens": 50}, "output_tokens": 9,
                             "total_tokens": 109, "ctxbench_step": [2, 1]},
                   "error": null, "metadata": {}}),
        ),
    ]
}

fn wire(events: &[Event]) -> String {
    events.iter().map(Event::wire).collect()
}

#[test]
fn every_reply_streams_and_reads_back_byte_for_byte() {
    for (format, reply) in replies() {
        for usage_chunk in [true, false] {
            let events = events(format, &reply, usage_chunk, Pace::NOW);
            let back = assemble(format, &wire(&events)).expect("a reply");
            let mut want = reply.clone();
            if format == Format::Chat && !usage_chunk {
                // Without include_usage a chat stream carries no usage, as OpenAI's.
                want.as_object_mut().unwrap().remove("usage");
            }
            assert_eq!(back.to_string(), want.to_string(), "{format:?}");
        }
    }
}

#[test]
fn a_failure_under_way_reads_back_as_the_unstreamed_error() {
    for (format, reply) in replies() {
        let events = failure(format, &reply, "the summary came back unusable", true);
        assert!(events.len() >= 2, "the stream had begun: {events:?}");
        let failed = assemble(format, &wire(&events)).expect_err("a failure");
        assert_eq!(failed.status, 500, "{format:?}");
        assert_eq!(
            failed.body.pointer("/error/message").and_then(Value::as_str),
            Some("the summary came back unusable"),
            "{format:?}: {}",
            failed.body
        );
    }
}

#[test]
fn a_stream_cut_short_is_a_server_error() {
    for (format, reply) in replies() {
        let events = events(format, &reply, true, Pace::NOW);
        let cut = wire(&events[..events.len() / 2]);
        if format == Format::Anthropic {
            // Anthropic's message is whole at any point; its stop comes in message_delta.
            let back = assemble(format, &cut).expect("a partial message");
            assert_eq!(back["stop_reason"], Value::Null);
            continue;
        }
        let failed = assemble(format, &cut);
        if format == Format::Chat {
            assert!(failed.is_ok_and(|v| v["choices"][0]["finish_reason"].is_null()));
        } else {
            assert_eq!(failed.map_err(|f| f.status), Err(502), "{format:?}");
        }
    }
    assert_eq!(
        assemble(Format::Chat, "data: {oops\n\n").map_err(|f| f.status),
        Err(502)
    );
}

#[test]
fn events_are_paced_first_token_then_decode() {
    let (format, reply) = replies().remove(0);
    let pace = Pace {
        first_s: 0.7,
        last_s: 1.5,
    };
    let events = events(format, &reply, true, pace);
    let times: Vec<f64> = events.iter().map(|e| e.at_s).collect();
    assert_eq!(times[0], 0.0, "the role chunk goes at once");
    assert_eq!(times[1], 0.7, "the first token after the prefill");
    assert!(times.windows(2).all(|w| w[0] <= w[1]), "{times:?}");
    assert!(
        times[2] > 0.7 && times[times.len() - 4] < 1.5,
        "the decode between: {times:?}"
    );
    assert_eq!(times[times.len() - 1], 1.5, "the end at the call's latency");
}

#[test]
fn pieces_cut_at_character_boundaries() {
    let text = "ééééééééééé…abc";
    let parts = pieces(text);
    assert_eq!(parts.concat(), text);
    assert!(parts.iter().all(|p| p.len() <= PIECE + 3 && !p.is_empty()));
    assert!(pieces("").is_empty());
}

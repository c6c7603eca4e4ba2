//! `serve` streams: each format's events in the reference's order with its fields, the same
//! results streamed or not for every bundled scenario, pacing by the latency model, and real
//! clients (the official packages' stream readers, an Agents SDK agent) reading the streams.

use std::io::{BufRead, BufReader, Read, Write};
use std::net::TcpStream;
use std::path::{Path, PathBuf};
use std::time::{Duration, Instant};

use ctxbench_harness::http::sse;
use ctxbench_harness::run::run_scenario;
use ctxbench_harness::scenario::load_scenario;
use ctxbench_harness::settings::RunSettings;
use serde_json::{Value, json};

use crate::cmd::{ctxbench, read, scratch};
use crate::serve::{Served, get};
use crate::serve_formats::{python_with, run_python};

const SCENARIO: &str = "scenarios/bike-shop-return.json";
const FIRST: &str = "Hi! My order #4471 came with a bent front wheel. Can you help?";

/// A raw HTTP/1.1 POST: the response head and the body as sent (chunked transfer decoded), and
/// when each body chunk arrived after the request went out.
fn post_raw(url: &str, path: &str, body: &str) -> (String, String, Vec<(Duration, String)>) {
    post_raw_with(url, path, body, "")
}

/// [`post_raw`] with more header lines (each ending `\r\n`).
fn post_raw_with(url: &str, path: &str, body: &str, headers: &str) -> (String, String, Vec<(Duration, String)>) {
    let host = url.trim_start_matches("http://");
    let mut socket = TcpStream::connect(host).expect("connects");
    socket.set_read_timeout(Some(Duration::from_secs(30))).unwrap();
    write!(
        socket,
        "POST {path} HTTP/1.1\r\nHost: {host}\r\nContent-Type: application/json\r\n{headers}Content-Length: {}\r\n\r\n{body}",
        body.len()
    )
    .unwrap();
    let sent = Instant::now();
    let mut reader = BufReader::new(socket);
    let mut head = String::new();
    loop {
        let mut line = String::new();
        reader.read_line(&mut line).unwrap();
        if line == "\r\n" {
            break;
        }
        head.push_str(&line);
    }
    assert!(head.to_lowercase().contains("transfer-encoding: chunked"), "{head}");
    let mut chunks = Vec::new();
    loop {
        let mut size = String::new();
        reader.read_line(&mut size).unwrap();
        let n = usize::from_str_radix(size.trim(), 16).expect("a chunk size");
        let mut chunk = vec![0; n + 2];
        reader.read_exact(&mut chunk).unwrap();
        if n == 0 {
            break;
        }
        chunks.push((sent.elapsed(), String::from_utf8(chunk[..n].to_vec()).unwrap()));
    }
    let body = chunks.iter().map(|(_, c)| c.as_str()).collect();
    (head, body, chunks)
}

/// The two calls of the first request streamed in `format`: the first answers with a tool call,
/// the second (the result sent back) with text. Their event streams, as sent.
fn first_request_streamed(url: &str, format: &str) -> Vec<String> {
    let (path, first, next): (&str, Value, fn(&Value) -> Value) = match format {
        "chat" => (
            "/v1/chat/completions",
            json!({"stream": true, "stream_options": {"include_usage": true}, "user": "events-chat",
                   "messages": [{"role": "user", "content": FIRST}]}),
            |reply: &Value| {
                let message = &reply["choices"][0]["message"];
                let id = &message["tool_calls"][0]["id"];
                json!({"stream": true, "stream_options": {"include_usage": true}, "user": "events-chat",
                       "messages": [{"role": "user", "content": FIRST}, message,
                                    {"role": "tool", "tool_call_id": id, "content": "Order #4471: a Mavic Aksium 700c front wheel."}]})
            },
        ),
        "anthropic" => (
            "/v1/messages",
            json!({"stream": true, "max_tokens": 100, "metadata": {"user_id": "events-anthropic"},
                   "messages": [{"role": "user", "content": FIRST}]}),
            |reply: &Value| {
                let id = &reply["content"][0]["id"];
                json!({"stream": true, "max_tokens": 100, "metadata": {"user_id": "events-anthropic"},
                       "messages": [{"role": "user", "content": FIRST}, {"role": "assistant", "content": reply["content"]},
                                    {"role": "user", "content": [{"type": "tool_result", "tool_use_id": id,
                                                                  "content": "Order #4471: a Mavic Aksium 700c front wheel."}]}]})
            },
        ),
        _ => (
            "/v1/responses",
            json!({"stream": true, "user": "events-responses", "input": FIRST}),
            |reply: &Value| {
                let call = &reply["output"][0];
                json!({"stream": true, "user": "events-responses",
                       "input": [{"role": "user", "content": FIRST}, call,
                                 {"type": "function_call_output", "call_id": call["call_id"],
                                  "output": "Order #4471: a Mavic Aksium 700c front wheel."}]})
            },
        ),
    };
    let api = ctxbench_compact::wire::Format::parse(format).expect("a format");
    let (head, one, _) = post_raw(url, path, &first.to_string());
    assert!(
        head.to_lowercase().contains("content-type: text/event-stream"),
        "{head}"
    );
    let reply = ctxbench_harness::http::stream::assemble(api, &one).expect("a reply");
    let (_, two, _) = post_raw(url, path, &next(&reply).to_string());
    vec![one, two]
}

/// Checks a chat stream against the reference: chunks of one id, the role first, each tool call
/// opened with its index, id, type and name before its argument pieces, `finish_reason` on the
/// last chunk with choices, the usage chunk (no choices), `[DONE]`.
fn chat_follows_the_reference(text: &str) {
    let events = sse::parse(text);
    assert_eq!(events.last().map(|(_, d)| d.as_str()), Some("[DONE]"));
    let chunks: Vec<Value> = events[..events.len() - 1]
        .iter()
        .map(|(name, data)| {
            assert!(name.is_none(), "chat chunks have no event name");
            serde_json::from_str(data).expect("JSON")
        })
        .collect();
    let id = &chunks[0]["id"];
    assert_eq!(chunks[0]["choices"][0]["delta"]["role"], "assistant");
    let mut opened = Vec::new();
    let (with_choices, usage) = chunks.split_at(chunks.len() - 1);
    for (k, chunk) in with_choices.iter().enumerate() {
        assert_eq!(
            (&chunk["id"], chunk["object"].as_str()),
            (id, Some("chat.completion.chunk"))
        );
        assert!(chunk["usage"].is_null(), "usage only in the last chunk");
        let choice = &chunk["choices"][0];
        assert_eq!(choice["index"], 0);
        let last = k == with_choices.len() - 1;
        assert_eq!(
            !choice["finish_reason"].is_null(),
            last,
            "finish_reason on the last chunk: {chunk}"
        );
        for call in choice["delta"]["tool_calls"].as_array().into_iter().flatten() {
            let index = call["index"].as_u64().expect("an index");
            if !opened.contains(&index) {
                assert!(
                    call["id"].is_string() && call["type"] == "function" && call["function"]["name"].is_string(),
                    "{call}"
                );
                opened.push(index);
            } else {
                assert!(
                    call.get("id").is_none() && call["function"]["arguments"].is_string(),
                    "{call}"
                );
            }
        }
    }
    assert_eq!(usage[0]["choices"], json!([]));
    assert!(usage[0]["usage"]["prompt_tokens"].is_u64(), "{}", usage[0]);
}

/// The events of a stream whose events are named (Anthropic, Responses): each name, and its data,
/// whose `type` must be that name.
fn named_events(text: &str) -> Vec<(String, Value)> {
    sse::parse(text)
        .into_iter()
        .map(|(name, data)| {
            let data: Value = serde_json::from_str(&data).expect("JSON");
            let name = name.expect("an event name");
            assert_eq!(data["type"], name.as_str());
            (name, data)
        })
        .collect()
}

/// Anthropic: `message_start`, `ping`, blocks from index 0 each start, deltas, stop, then
/// `message_delta` with the stop reason and output usage, `message_stop`; every event's name its
/// data's `type`.
fn anthropic_follows_the_reference(text: &str) {
    let events = named_events(text);
    let names: Vec<&str> = events.iter().map(|(n, _)| n.as_str()).collect();
    assert_eq!(names[..2], ["message_start", "ping"]);
    assert_eq!(names[names.len() - 2..], ["message_delta", "message_stop"]);
    let start = &events[0].1["message"];
    assert_eq!(start["content"], json!([]));
    assert!(start["usage"]["input_tokens"].is_u64(), "{start}");
    let delta = &events[names.len() - 2].1;
    assert!(
        delta["delta"]["stop_reason"].is_string() && delta["usage"]["output_tokens"].is_u64(),
        "{delta}"
    );
    let mut block = 0;
    let mut open = None;
    for (name, data) in &events[2..names.len() - 2] {
        match (name.as_str(), &open) {
            ("content_block_start", None) => {
                assert_eq!(data["index"], block);
                let kind = data["content_block"]["type"].as_str().expect("a type");
                open = Some(kind.to_owned());
            }
            ("content_block_delta", Some(_)) => {
                assert_eq!(data["index"], block);
                let delta_type = data["delta"]["type"].as_str().expect("a delta type");
                let kind = open.as_deref();
                let fits = matches!(
                    (kind, delta_type),
                    (Some("text"), "text_delta")
                        | (Some("tool_use"), "input_json_delta")
                        | (Some("thinking"), "thinking_delta" | "signature_delta")
                );
                assert!(fits, "{delta_type} in a {kind:?} block");
            }
            ("content_block_stop", Some(_)) => {
                assert_eq!(data["index"], block);
                open = None;
                block += 1;
            }
            other => panic!("{other:?} out of order in {names:?}"),
        }
    }
    assert!(open.is_none() && block > 0, "{names:?}");
}

/// Responses: `response.created`, `response.in_progress`, each item added, its parts or argument
/// deltas and done events, the item done, then `response.completed`; sequence numbers from 0 in
/// order; every event's name its data's `type`.
fn responses_follow_the_reference(text: &str) {
    let events = named_events(text);
    for (k, (_, data)) in events.iter().enumerate() {
        assert_eq!(data["sequence_number"], k, "{data}");
    }
    let names: Vec<&str> = events.iter().map(|(n, _)| n.as_str()).collect();
    assert_eq!(names[..2], ["response.created", "response.in_progress"]);
    assert_eq!(names.last(), Some(&"response.completed"));
    assert_eq!(events[0].1["response"]["status"], "in_progress");
    let done = &events[names.len() - 1].1["response"];
    assert!(
        done["usage"]["input_tokens_details"]["cached_tokens"].is_u64(),
        "{done}"
    );
    let mut k = 2;
    let mut output = 0;
    while k < names.len() - 1 {
        assert_eq!(names[k], "response.output_item.added");
        assert_eq!(events[k].1["output_index"], output);
        let item = &events[k].1["item"];
        let id = &item["id"];
        k += 1;
        match item["type"].as_str() {
            Some("message") => {
                while names[k] == "response.content_part.added" {
                    let rest = ["response.output_text.delta", "response.output_text.done"];
                    k += 1;
                    while names[k] == rest[0] {
                        assert!(events[k].1["delta"].is_string() && &events[k].1["item_id"] == id);
                        k += 1;
                    }
                    assert_eq!(names[k..k + 2], [rest[1], "response.content_part.done"]);
                    k += 2;
                }
            }
            Some("function_call") => {
                while names[k] == "response.function_call_arguments.delta" {
                    assert!(events[k].1["delta"].is_string() && &events[k].1["item_id"] == id);
                    k += 1;
                }
                assert_eq!(names[k], "response.function_call_arguments.done");
                k += 1;
            }
            _ => {}
        }
        assert_eq!(names[k], "response.output_item.done");
        assert_eq!(
            &events[k].1["item"], &done["output"][output],
            "the item done is the item completed"
        );
        k += 1;
        output += 1;
    }
    assert!(output > 0, "{names:?}");
}

#[test]
fn each_formats_events_follow_the_reference_byte_for_byte() {
    let dir = scratch("serve-stream-events");
    let served = Served::start(SCENARIO, &dir.join("serve"), &[]);
    for format in ["chat", "anthropic", "responses"] {
        let streams = first_request_streamed(&served.url, format);
        for stream in &streams {
            match format {
                "chat" => chat_follows_the_reference(stream),
                "anthropic" => anthropic_follows_the_reference(stream),
                _ => responses_follow_the_reference(stream),
            }
        }
        // The bytes themselves: a tool call, then a text reply.
        insta::assert_snapshot!(
            format!("stream_{format}"),
            streams.join("\n---- the next call ----\n\n")
        );
    }
    served.stop();
}

/// The bundled scenarios: the suite and the probes.
fn bundled() -> Vec<PathBuf> {
    let mut files = Vec::new();
    for dir in ["scenarios", "scenarios/probes"] {
        let dir = Path::new(env!("CARGO_MANIFEST_DIR")).join(dir);
        for entry in std::fs::read_dir(&dir).expect("the scenarios") {
            let path = entry.expect("an entry").path();
            let name = path.file_name().and_then(|n| n.to_str()).unwrap_or("");
            if name.ends_with(".json") && name != "schema.json" {
                files.push(path);
            }
        }
    }
    files.sort();
    assert!(files.len() >= 10, "{files:?}");
    files
}

#[test]
fn streamed_and_unstreamed_runs_of_every_bundled_scenario_give_identical_results() {
    let dir = scratch("serve-stream-equal");
    let scenarios = bundled();
    std::thread::scope(|s| {
        for (i, scenario) in scenarios.iter().enumerate() {
            let dir = dir.join(format!("{i:02}"));
            s.spawn(move || {
                let mut said = Vec::new();
                for streamed in [false, true] {
                    let out = dir.join(if streamed { "streamed" } else { "plain" });
                    let served = Served::start(scenario.to_str().unwrap(), &out, &[]);
                    let mut runs = String::new();
                    for (api, strategy) in [
                        ("chat", "truncate+drop"),
                        ("anthropic", "summarize"),
                        ("responses", "mask+drop"),
                    ] {
                        let mut run = ctxbench();
                        run.arg("run")
                            .arg(scenario)
                            .args(["--strategy", strategy, "--model", "scripted"]);
                        run.args(["--api", api, "--user", api, "--endpoint", &format!("{}/v1", served.url)]);
                        if streamed {
                            run.arg("--stream");
                        }
                        let output = run.output().expect("run");
                        runs.push_str(&String::from_utf8_lossy(&output.stdout));
                        runs.push_str(&format!("exit {:?}\n", output.status.code()));
                    }
                    served.stop();
                    said.push(runs);
                }
                assert_eq!(said[0], said[1], "{}: what run said", scenario.display());
                for file in ["results.csv", "results.json"] {
                    let plain = read(dir.join("plain").join(file));
                    assert!(plain.len() > 100, "{}", scenario.display());
                    assert_eq!(
                        String::from_utf8_lossy(&read(dir.join("streamed").join(file))),
                        String::from_utf8_lossy(&plain),
                        "{}: {file}",
                        scenario.display()
                    );
                }
                let csv = String::from_utf8_lossy(&read(dir.join("plain/results.csv"))).into_owned();
                assert_eq!(csv.lines().count(), 4, "a row per format: {csv}");
            });
        }
    });
}

#[test]
fn a_streams_first_token_waits_for_the_prefill_scaled() {
    let dir = scratch("serve-stream-pace");
    // 0.25 s of overhead, 100 input tokens a second, 50 reply tokens a second; real time at 1.
    let served = Served::start(
        SCENARIO,
        &dir.join("serve"),
        &["--latency", "overhead=0.25,prefill=100,decode=50", "--time-scale", "1"],
    );
    let body = json!({"stream": true, "stream_options": {"include_usage": true}, "messages": [{"role": "user", "content": FIRST}]});
    let (_, text, chunks) = post_raw(&served.url, "/v1/chat/completions", &body.to_string());
    let reply = ctxbench_harness::http::stream::assemble(ctxbench_compact::wire::Format::Chat, &text).expect("a reply");
    let usage = &reply["usage"];
    let latency = usage["ctxbench_latency_s"].as_f64().expect("the call's latency");
    let decode = usage["completion_tokens"].as_f64().unwrap() / 50.0;
    // The role goes at once; the first token (the call's opening) after overhead and prefill.
    let first_token = chunks[1].0.as_secs_f64();
    assert!(
        first_token >= latency - decode - 1e-3,
        "{first_token} s before {} s",
        latency - decode
    );
    let last = chunks.last().unwrap().0.as_secs_f64();
    assert!(
        last >= latency - 1e-3,
        "the end at {last} s, before the call's {latency} s"
    );
    served.stop();
}

#[test]
fn the_official_clients_stream_readers_reassemble_every_reply() {
    let (Some(python), Some(_)) = (python_with("openai"), python_with("anthropic")) else {
        return;
    };
    let dir = scratch("serve-stream-python");
    for scenario in [SCENARIO, "scenarios/parallel-calls.json"] {
        let served = Served::start(scenario, &dir.join("serve"), &["--cache", "breakpoints:min=64"]);
        let stdout = run_python(
            &python,
            &["tests/python/stream_clients.py", scenario, &served.url],
            scenario,
        );
        for api in ["chat", "responses", "anthropic"] {
            assert!(stdout.contains(&format!("{api}: ")), "{stdout}");
        }
        let (_, report) = get(&format!("{}/ctxbench/report", served.url));
        let runs = report["runs"].as_array().expect("runs");
        let figures = |run: &str| runs.iter().find(|r| r["run"] == run).map(|r| r["figures"].clone());
        for api in ["chat", "responses", "anthropic"] {
            let plain = figures(&format!("plain-{api}")).expect("the unstreamed run");
            assert_eq!(plain["completed"], true, "{api}: {plain}");
            assert_eq!(
                figures(&format!("streamed-{api}")),
                Some(plain),
                "{scenario} {api}: the same figures streamed"
            );
        }
        served.stop();
    }
}

#[test]
fn a_streaming_agents_sdk_run_equals_the_run_in_process() {
    let Some(python) = python_with("agents") else {
        return;
    };
    let dir = scratch("serve-stream-agents-sdk");
    let served = Served::start(SCENARIO, &dir.join("serve"), &[]);
    let base = format!("{}/v1", served.url);
    for api in ["responses", "chat"] {
        let args = [
            "examples/agents_sdk.py",
            SCENARIO,
            "--base-url",
            &base,
            "--api",
            api,
            "--user",
            api,
        ];
        let stdout = run_python(&python, &args, api);
        assert!(stdout.contains("model calls streamed"), "{api}: {stdout}");
    }
    let (_, report) = get(&format!("{}/ctxbench/report", served.url));
    served.stop();
    // The agent does not compact: the run in process with no strategy, serve's settings.
    let scenario = load_scenario(Path::new(SCENARIO), RunSettings::DEFAULT_SEED).expect("the scenario");
    let settings = RunSettings::new("none".parse().expect("a strategy"))
        .resolved(&scenario)
        .expect("settings");
    let mut here = run_scenario(&scenario, &settings, &mut |_| {}).expect("runs").metrics;
    // What only the client's compactor knows (serve sees requests, not compactions): none here
    // compacts, but `none` says it could not fit the requests it sent over the threshold.
    assert!(here.compactions == 0 && here.cannot_fit > 0, "{here:?}");
    here.cannot_fit = 0;
    let here = serde_json::to_value(&here).expect("figures");
    for api in ["responses", "chat"] {
        let run = report["runs"]
            .as_array()
            .and_then(|runs| runs.iter().find(|r| r["run"] == api))
            .unwrap_or_else(|| panic!("the {api} run in {report}"));
        assert_eq!(
            run["figures"], here,
            "{api}: the Agents SDK's streamed run, figure for figure"
        );
    }
}

#[test]
fn a_request_among_a_coding_agents_own_blocks_is_placed() {
    let dir = scratch("serve-stream-blocks");
    let served = Served::start(SCENARIO, &dir.join("serve"), &[]);
    // As Claude Code sends a prompt: its own reminder block first, then what was typed.
    let content = json!([{"type": "text", "text": "<system-reminder>Today is Saturday.</system-reminder>"},
                         {"type": "text", "text": FIRST, "cache_control": {"type": "ephemeral"}}]);
    let body = json!({"stream": true, "max_tokens": 100, "messages": [{"role": "user", "content": content}]});
    let (_, text, _) = post_raw(&served.url, "/v1/messages?beta=true", &body.to_string());
    let reply = ctxbench_harness::http::stream::assemble(ctxbench_compact::wire::Format::Anthropic, &text)
        .unwrap_or_else(|e| panic!("{e:?}"));
    assert_eq!(reply["content"][0]["name"], "get_order", "{reply}");
    assert_eq!(reply["usage"]["ctxbench_step"], json!([1, 1]));
    // A prompt that is none of the scenario's is refused, naming its place.
    let other = json!({"max_tokens": 100, "messages": [{"role": "user", "content": [{"type": "text", "text": "What is 2+2?"}]}]});
    let (status, error) = crate::serve::post(&format!("{}/v1/messages", served.url), &other.to_string(), &[]);
    assert_eq!(status, 400);
    assert!(
        error["error"]["message"].as_str().unwrap().contains("messages[0]"),
        "{error}"
    );
    served.stop();
}

/// A summarizer profile whose summaries always come back unusable.
const FAILING: &str = r#"
[summarizer.failing]
about = "summaries that always come back unusable"
distort = 0.0
fail = 1.0
length = { scale = 1.0, carry = 0.5 }
keep.told = [[0.0, 1.0], [1.0, 1.0]]
keep.decision = [[0.0, 1.0], [1.0, 1.0]]
keep.path = [[0.0, 1.0], [1.0, 1.0]]
keep.artifact = [[0.0, 1.0], [1.0, 1.0]]
keep.number = [[0.0, 1.0], [1.0, 1.0]]
keep.id = [[0.0, 1.0], [1.0, 1.0]]
keep.detail = [[0.0, 1.0], [1.0, 1.0]]
keep.command = [[0.0, 1.0], [1.0, 1.0]]
"#;

#[test]
fn a_failure_under_way_ends_the_stream_with_the_formats_error() {
    let dir = scratch("serve-stream-failure");
    std::fs::write(dir.join("failing.toml"), FAILING).unwrap();
    let profile = format!("{}#failing", dir.join("failing.toml").display());
    let served = Served::start(SCENARIO, &dir.join("serve"), &["--summarizer", &profile]);
    // The raw events: the stream begins, then ends in each format's own error.
    let ends: [(&str, &str, Value, &str); 3] = [
        (
            "chat",
            "/v1/chat/completions",
            json!({"messages": [{"role": "user", "content": FIRST}], "user": "f-chat"}),
            "data: {\"error\":{\"message\":\"the summary came back unusable",
        ),
        (
            "anthropic",
            "/v1/messages",
            json!({"max_tokens": 9, "messages": [{"role": "user", "content": FIRST}], "metadata": {"user_id": "f-anthropic"}}),
            "event: error\ndata: {\"type\":\"error\",\"error\":{\"type\":\"api_error\",\"message\":\"the summary came back unusable",
        ),
        (
            "responses",
            "/v1/responses",
            json!({"input": FIRST, "user": "f-responses"}),
            "event: response.failed\n",
        ),
    ];
    for (format, path, body, end) in ends {
        let (status, _) = crate::serve::post(&format!("{}{path}", served.url), &body.to_string(), &[]);
        assert_eq!(status, 200, "{format}: the conversation begins");
        let mut summary = body.clone();
        summary["stream"] = json!(true);
        let (head, text, _) = post_raw_with(&served.url, path, &summary.to_string(), "X-Ctxbench-Kind: summary\r\n");
        assert!(head.starts_with("HTTP/1.1 200"), "{format}: {head}");
        let cut = text
            .find(end)
            .unwrap_or_else(|| panic!("{format}: no {end:?} in {text}"));
        assert!(cut > 0, "{format}: the stream had begun before its error: {text}");
    }
    // And the loop reads it as the failure it is: the same trace as unstreamed, and as in process.
    let mut traces = Vec::new();
    for streamed in [false, true] {
        let trace = dir.join(format!("trace-{streamed}.jsonl"));
        let mut run = ctxbench();
        run.args([
            "run",
            SCENARIO,
            "--strategy",
            "summarize",
            "--summarizer",
            &profile,
            "--model",
            "scripted",
        ]);
        run.args([
            "--api",
            "anthropic",
            "--retries",
            "0",
            "--endpoint",
            &format!("{}/v1", served.url),
            "--trace",
        ]);
        run.arg(&trace);
        if streamed {
            run.arg("--stream");
        }
        run.assert().success();
        traces.push(String::from_utf8_lossy(&read(&trace)).into_owned());
    }
    let here = dir.join("here.jsonl");
    ctxbench()
        .args([
            "run",
            SCENARIO,
            "--strategy",
            "summarize",
            "--summarizer",
            &profile,
            "--trace",
        ])
        .arg(&here)
        .assert()
        .success();
    assert!(
        traces[0].contains("\"kind\":\"summary\""),
        "a summary was asked for: {}",
        traces[0]
    );
    assert_eq!(traces[1], traces[0], "streamed or not");
    assert_eq!(String::from_utf8_lossy(&read(&here)), traces[0], "and in process");
    served.stop();
}

//! Live endpoints both ways: `ctxbench serve` on a free loopback port, `ctxbench run --endpoint`
//! against it, the error shapes, retries, and the key that never shows.

use std::io::{BufRead, BufReader, Read, Write};
use std::net::TcpListener;
use std::path::{Path, PathBuf};
use std::process::{Child, Command, Stdio};
use std::time::Duration;

use ctxbench_compact::tokens::CounterKind;
use ctxbench_compact::{Message, Role};
use ctxbench_harness::agent::model::{Model, ModelError, ModelRequest};
use ctxbench_harness::http::{HttpConfig, HttpModel};
use ctxbench_harness::trace::CallKind;
use serde_json::{Value, json};

use crate::cmd::{ctxbench, read, scratch};

const SECRET: &str = "sk-ctxbench-test-SECRET-4f9a";

/// A `ctxbench serve` child on a free port, and its base URL.
pub struct Served {
    child: Child,
    pub url: String,
}

impl Served {
    pub fn start(scenario: &str, out: &Path, extra: &[&str]) -> Served {
        let mut child = Command::new(env!("CARGO_BIN_EXE_ctxbench"))
            .current_dir(env!("CARGO_MANIFEST_DIR"))
            .args(["serve", scenario, "--port", "0", "-o"])
            .arg(out)
            .args(extra)
            .stdout(Stdio::piped())
            .stderr(Stdio::piped())
            .spawn()
            .expect("serve starts");
        let mut line = String::new();
        BufReader::new(child.stdout.as_mut().expect("stdout"))
            .read_line(&mut line)
            .expect("a first line");
        let url = line
            .trim()
            .strip_prefix("listening on ")
            .unwrap_or_else(|| panic!("first line: {line:?}"))
            .to_owned();
        assert!(url.starts_with("http://127.0.0.1:"), "loopback only by default: {url}");
        Served { child, url }
    }

    /// Asks it to stop; returns its stdout and stderr after the first line.
    pub fn stop(mut self) -> String {
        let reply = post(&format!("{}/ctxbench/shutdown", self.url), "", &[]);
        assert_eq!(reply.0, 200);
        let status = self.child.wait().expect("serve exits");
        assert!(status.success(), "serve exits 0");
        let mut out = String::new();
        self.child.stdout.take().unwrap().read_to_string(&mut out).unwrap();
        self.child.stderr.take().unwrap().read_to_string(&mut out).unwrap();
        out
    }
}

impl Drop for Served {
    fn drop(&mut self) {
        let _ = self.child.kill();
    }
}

fn agent() -> ureq::Agent {
    ureq::Agent::config_builder()
        .http_status_as_error(false)
        .timeout_global(Some(Duration::from_secs(30)))
        .build()
        .into()
}

/// `(status, body)` of a POST.
pub fn post(url: &str, body: &str, headers: &[(&str, &str)]) -> (u16, Value) {
    let mut call = agent().post(url).header("Content-Type", "application/json");
    for (k, v) in headers {
        call = call.header(*k, *v);
    }
    let mut response = call.send(body).expect("the server answers");
    let status = response.status().as_u16();
    let text = response.body_mut().read_to_string().unwrap_or_default();
    (status, serde_json::from_str(&text).unwrap_or(Value::Null))
}

pub fn get(url: &str) -> (u16, Value) {
    let mut response = agent().get(url).call().expect("the server answers");
    let status = response.status().as_u16();
    let text = response.body_mut().read_to_string().unwrap_or_default();
    (status, serde_json::from_str(&text).unwrap_or(Value::Null))
}

fn all_files(dir: &Path) -> Vec<PathBuf> {
    let mut files = Vec::new();
    for entry in std::fs::read_dir(dir).unwrap_or_else(|e| panic!("{}: {e}", dir.display())) {
        let path = entry.unwrap().path();
        if path.is_dir() {
            files.extend(all_files(&path));
        } else {
            files.push(path);
        }
    }
    files
}

#[test]
fn a_run_over_http_equals_the_run_in_process() {
    let dir = scratch("serve-equal");
    for scenario in ["scenarios/bike-shop-return.json", "scenarios/unfetchable-facts.json"] {
        let served = Served::start(scenario, &dir.join("serve"), &[]);
        for strategy in ["none", "truncate+drop", "summarize", "mask+drop"] {
            let local = dir.join("local.jsonl");
            let live = dir.join("live.jsonl");
            let here = ctxbench()
                .args(["run", scenario, "--strategy", strategy, "--trace"])
                .arg(&local)
                .assert()
                .success();
            let there = ctxbench()
                .env("CTXBENCH_API_KEY", SECRET)
                .args([
                    "run",
                    scenario,
                    "--strategy",
                    strategy,
                    "--model",
                    "scripted",
                    "--trace",
                ])
                .arg(&live)
                .arg("--endpoint")
                .arg(format!("{}/v1", served.url))
                .assert()
                .success();
            assert_eq!(
                String::from_utf8_lossy(&read(&live)),
                String::from_utf8_lossy(&read(&local)),
                "{scenario} {strategy}: the same trace, call by call"
            );
            let table = |out: &[u8]| {
                String::from_utf8_lossy(out)
                    .rsplit("\n\n")
                    .next()
                    .unwrap_or("")
                    .to_owned()
            };
            assert_eq!(
                table(&there.get_output().stdout),
                table(&here.get_output().stdout),
                "the same figures"
            );
            for output in [&there.get_output().stdout, &there.get_output().stderr] {
                assert!(!String::from_utf8_lossy(output).contains(SECRET));
            }
        }
        let log = served.stop();
        assert!(log.contains("wrote"), "{log}");
        assert!(!log.contains(SECRET));
    }
    let rows = String::from_utf8_lossy(&read(dir.join("serve/results.csv"))).into_owned();
    assert_eq!(rows.lines().count(), 1 + 4, "one row per conversation: {rows}");
    for file in all_files(&dir) {
        assert!(
            !String::from_utf8_lossy(&read(&file)).contains(SECRET),
            "{} holds the key",
            file.display()
        );
    }
}

#[test]
fn errors_are_shaped_as_openais_and_nothing_crashes_it() {
    let dir = scratch("serve-errors");
    let served = Served::start(
        "scenarios/bike-shop-return.json",
        &dir.join("serve"),
        &["--window", "300", "--max-body-mib", "1"],
    );
    let chat = format!("{}/v1/chat/completions", served.url);
    let user = |text: &str| json!({"role": "user", "content": text});
    let first = "Hi! My order #4471 came with a bent front wheel. Can you help?";

    let (status, body) = post(&chat, "{\"messages\": [", &[]);
    assert_eq!(
        (status, body["error"]["type"].as_str()),
        (400, Some("invalid_request_error"))
    );

    let long = json!({"model": "m", "messages": [user(first), {"role": "assistant", "content": "x ".repeat(400)}, user(first)]});
    let (status, body) = post(&chat, &long.to_string(), &[]);
    assert_eq!(status, 400);
    assert_eq!(body["error"]["code"], "context_length_exceeded", "{body}");
    assert!(
        body["error"]["message"]
            .as_str()
            .unwrap()
            .contains("maximum context length is 300 tokens")
    );

    let broken = json!({"messages": [user(first), {"role": "tool", "tool_call_id": "nope", "content": "?"}]});
    let (status, body) = post(&chat, &broken.to_string(), &[]);
    assert_eq!(
        (status, body["error"]["param"].as_str()),
        (400, Some("messages")),
        "{body}"
    );

    let huge = format!("{{\"messages\": [], \"pad\": \"{}\"}}", "x".repeat(1_100_000));
    assert_eq!(post(&chat, &huge, &[]).0, 413);

    let stranger = json!({"messages": [user("What is the weather?")]});
    let (status, body) = post(&chat, &stranger.to_string(), &[]);
    assert_eq!(
        (status, body["error"]["code"].as_str()),
        (400, Some("ctxbench_unknown_request"))
    );

    assert_eq!(post(&format!("{}/v1/embeddings", served.url), "{}", &[]).0, 404);
    assert_eq!(get(&chat).0, 405);
    for garbage in [
        "",
        "null",
        "[1,2]",
        "{\"messages\": 7}",
        "{\"messages\": [{\"role\": 3}]}",
        "\u{0}\u{1}\u{2}",
    ] {
        assert_eq!(post(&chat, garbage, &[]).0, 400, "{garbage:?}");
    }
    // A client that announces a body and sends half of it, then goes away.
    let addr = served.url.trim_start_matches("http://").to_owned();
    let mut raw = std::net::TcpStream::connect(&addr).unwrap();
    raw.write_all(b"POST /v1/chat/completions HTTP/1.1\r\nHost: x\r\nContent-Length: 1000\r\n\r\n{\"mess")
        .unwrap();
    drop(raw);

    let (status, models) = get(&format!("{}/v1/models", served.url));
    assert_eq!(
        (status, models["data"][0]["id"].as_str()),
        (200, Some("bike-shop-return")),
        "still up"
    );
    let (status, report) = get(&format!("{}/ctxbench/report", served.url));
    assert_eq!(status, 200);
    assert_eq!(report["runs"][0]["figures"]["overflows"], 1, "{report}");
    served.stop();
}

/// A server on a free port that answers each connection with the next of `replies`, and
/// records the requests it got.
fn fake_server(replies: Vec<(u16, &'static str, String)>) -> (String, std::thread::JoinHandle<Vec<String>>) {
    let listener = TcpListener::bind("127.0.0.1:0").unwrap();
    let url = format!("http://{}/v1", listener.local_addr().unwrap());
    let handle = std::thread::spawn(move || {
        let mut seen = Vec::new();
        for (status, extra, body) in replies {
            let (mut stream, _) = listener.accept().unwrap();
            let mut reader = BufReader::new(stream.try_clone().unwrap());
            let mut head = String::new();
            let mut length = 0;
            loop {
                let mut line = String::new();
                reader.read_line(&mut line).unwrap();
                if let Some(v) = line.to_ascii_lowercase().strip_prefix("content-length:") {
                    length = v.trim().parse().unwrap();
                }
                head.push_str(&line);
                if line == "\r\n" {
                    break;
                }
            }
            let mut request = vec![0; length];
            reader.read_exact(&mut request).unwrap();
            seen.push(head + &String::from_utf8_lossy(&request));
            let reply = format!(
                "HTTP/1.1 {status} X\r\nContent-Type: application/json\r\n{extra}Content-Length: {}\r\nConnection: close\r\n\r\n{body}",
                body.len()
            );
            stream.write_all(reply.as_bytes()).unwrap();
        }
        seen
    });
    (url, handle)
}

fn completion(content: &str) -> String {
    json!({"choices": [{"index": 0, "message": {"role": "assistant", "content": content}, "finish_reason": "stop"}],
           "usage": {"prompt_tokens": 42, "completion_tokens": 3}})
    .to_string()
}

fn model(url: &str) -> HttpModel {
    let config = HttpConfig {
        api_key: Some(SECRET.into()),
        backoff: Duration::from_millis(10),
        ..HttpConfig::new(url, "some-model")
    };
    assert!(!format!("{config:?}").contains(SECRET), "Debug hides the key");
    HttpModel::new(config, CounterKind::Chars4.counter())
}

fn ask(model: &mut HttpModel) -> Result<ctxbench_harness::agent::model::ModelReply, ModelError> {
    let system = Message::new(Role::System, "Be brief.");
    let messages = [Message::new(Role::User, "Hi")];
    model.complete(ModelRequest {
        kind: CallKind::Agent,
        system: Some(&system),
        messages: &messages,
        tools: &ctxbench_compact::tool_schemas::NO_TOOLS,
        request: 0,
        summary: None,
        at_s: 0.0,
        marks: None,
    })
}

#[test]
fn the_http_model_retries_on_5xx_and_429_then_reads_usage() {
    let (url, server) = fake_server(vec![
        (503, "", "{\"error\": {\"message\": \"overloaded\"}}".into()),
        (429, "Retry-After: 0\r\n", "{}".into()),
        (200, "", completion("Hello.")),
    ]);
    let mut m = model(&url);
    let reply = ask(&mut m).expect("the third attempt answers");
    assert_eq!(reply.message.text(), "Hello.");
    assert_eq!((reply.usage.prompt_tokens, reply.usage.completion_tokens), (42, 3));
    assert_eq!(m.retried(), 2);
    let seen = server.join().unwrap();
    assert_eq!(seen.len(), 3);
    let lower = seen[2].to_ascii_lowercase();
    assert!(lower.contains(&format!("authorization: bearer {}", SECRET.to_ascii_lowercase())));
    assert!(lower.contains("x-ctxbench-kind: agent"));
    assert!(seen[2].contains("\"model\":\"some-model\""));
}

#[test]
fn the_http_model_reads_rejections_and_never_repeats_the_key() {
    let vllm = "{\"object\":\"error\",\"message\":\"This model's maximum context length is 4096 tokens. However, you requested 5000 tokens.\",\"type\":\"BadRequestError\",\"code\":400}";
    let echo = format!(
        "{{\"error\": {{\"message\": \"Incorrect API key provided: {SECRET}\", \"code\": \"invalid_api_key\"}}}}"
    );
    let (url, server) = fake_server(vec![(400, "", vllm.into()), (401, "", echo), (500, "", "{}".into())]);
    let mut m = model(&url);
    assert_eq!(
        ask(&mut m).unwrap_err(),
        ModelError::ContextWindowExceeded {
            needed: 5000,
            limit: 4096
        }
    );
    let unauthorized = ask(&mut m).unwrap_err().to_string();
    assert!(
        unauthorized.contains("HTTP 401") && !unauthorized.contains(SECRET),
        "{unauthorized}"
    );
    let mut m = HttpModel::new(
        HttpConfig {
            retries: 0,
            ..HttpConfig::new(url.clone(), "m")
        },
        CounterKind::Chars4.counter(),
    );
    assert!(
        ask(&mut m).unwrap_err().to_string().contains("HTTP 500"),
        "no retries left"
    );
    server.join().unwrap();
}

/// Measures each call of the model it wraps.
struct Timed<M> {
    inner: M,
    took: Vec<Duration>,
}

impl<M: Model> Model for Timed<M> {
    fn complete(&mut self, req: ModelRequest<'_>) -> Result<ctxbench_harness::agent::model::ModelReply, ModelError> {
        let start = std::time::Instant::now();
        let reply = self.inner.complete(req);
        self.took.push(start.elapsed());
        reply
    }
}

/// The load test (bounded, loopback only): 16 clients replay the scenario through the real loop
/// until 10,000 calls have been made, half with a strategy whose overflow the scenario calls for.
/// Every run's trace must equal the in-process run's: no error the scenario did not call for.
/// Figures for the README: `cargo test --release --test it load -- --nocapture`.
#[test]
fn load_ten_thousand_calls_from_sixteen_clients() {
    use ctxbench_harness::run::{run_live, run_scenario};
    use ctxbench_harness::settings::RunSettings;
    const CLIENTS: usize = 16;
    const CALLS: usize = 10_000;
    let dir = scratch("serve-load");
    let path = "scenarios/bike-shop-return.json";
    let served = Served::start(path, &dir.join("serve"), &["--threads", "8"]);
    let scenario =
        ctxbench_harness::scenario::load_scenario(&Path::new(env!("CARGO_MANIFEST_DIR")).join(path), 0).unwrap();
    let configs: Vec<RunSettings> = ["none", "truncate+drop"]
        .iter()
        .map(|s| RunSettings::new(s.parse().unwrap()))
        .collect();
    let expected: Vec<Vec<ctxbench_harness::trace::CallRecord>> = configs
        .iter()
        .map(|c| run_scenario(&scenario, c, &mut |_| {}).unwrap().trace)
        .collect();
    let per_run: usize = expected.iter().map(Vec::len).sum::<usize>() / expected.len();
    let runs_each = CALLS.div_ceil(per_run * CLIENTS);
    let start = std::time::Instant::now();
    let took: Vec<Duration> = std::thread::scope(|s| {
        let handles: Vec<_> = (0..CLIENTS)
            .map(|client| {
                let (scenario, configs, expected, url) = (&scenario, &configs, &expected, &served.url);
                s.spawn(move || {
                    let mut took = Vec::new();
                    for run in 0..runs_each {
                        let k = (client + run) % configs.len();
                        let http = HttpConfig {
                            user: Some(format!("client-{client}")),
                            ..HttpConfig::new(format!("{url}/v1"), "scripted")
                        };
                        let mut model = Timed {
                            inner: HttpModel::new(http, CounterKind::O200k.counter()),
                            took: Vec::new(),
                        };
                        let result = run_live(scenario, &configs[k], &mut model, &mut |_| {}).unwrap();
                        assert_eq!(result.trace, expected[k], "client {client}, run {run}");
                        took.extend(model.took);
                    }
                    took
                })
            })
            .collect();
        handles.into_iter().flat_map(|h| h.join().expect("a client")).collect()
    });
    let wall = start.elapsed();
    let mut sorted = took.clone();
    sorted.sort();
    let at = |q: f64| sorted[((sorted.len() as f64 * q) as usize).min(sorted.len() - 1)];
    eprintln!(
        "load: {} calls from {CLIENTS} clients in {:.2} s: {:.0} calls/s; latency p50 {:.2} ms, p99 {:.2} ms, max {:.2} ms",
        took.len(),
        wall.as_secs_f64(),
        took.len() as f64 / wall.as_secs_f64(),
        at(0.5).as_secs_f64() * 1e3,
        at(0.99).as_secs_f64() * 1e3,
        sorted[sorted.len() - 1].as_secs_f64() * 1e3,
    );
    assert!(took.len() >= CALLS);
    let (status, report) = get(&format!("{}/ctxbench/report", served.url));
    assert_eq!(status, 200);
    let calls: u64 = report["runs"]
        .as_array()
        .unwrap()
        .iter()
        .map(|r| r["calls"].as_u64().unwrap())
        .sum();
    assert_eq!(calls as usize, took.len(), "the endpoint recorded every call");
    served.stop();
}

/// `examples/agent.py`, the official `openai` package's loop, against `serve`. Runs where a
/// Python with `openai` is at hand (`CTXBENCH_PYTHON`, else `python3`); says so when not.
#[test]
fn the_python_example_measures_its_own_loop() {
    let python = std::env::var("CTXBENCH_PYTHON").unwrap_or_else(|_| "python3".into());
    let has_openai = Command::new(&python)
        .args(["-c", "import openai"])
        .output()
        .is_ok_and(|o| o.status.success());
    if !has_openai {
        eprintln!("skipped: {python} has no `openai` package (set CTXBENCH_PYTHON to one that has)");
        return;
    }
    let dir = scratch("serve-python");
    let served = Served::start("scenarios/bike-shop-return.json", &dir.join("serve"), &[]);
    let out = Command::new(&python)
        .current_dir(env!("CARGO_MANIFEST_DIR"))
        .args(["examples/agent.py", "scenarios/bike-shop-return.json", "--base-url"])
        .arg(format!("{}/v1", served.url))
        .output()
        .expect("python runs");
    let stdout = String::from_utf8_lossy(&out.stdout);
    assert!(out.status.success(), "{stdout}{}", String::from_utf8_lossy(&out.stderr));
    assert!(stdout.contains("tool: create_return"), "{stdout}");
    let (_, report) = get(&format!("{}/ctxbench/report", served.url));
    let figures = &report["runs"][0]["figures"];
    assert_eq!(report["runs"][0]["run"], "examples/agent.py");
    assert_eq!(
        (figures["model_calls"].as_u64(), figures["completed"].as_bool()),
        (Some(6), Some(true))
    );
    served.stop();
}

/// Ctrl-C (SIGINT) ends `serve` cleanly, with its results and traces written.
#[cfg(unix)]
#[test]
fn ctrl_c_writes_the_results() {
    let dir = scratch("serve-sigint");
    let mut served = Served::start("scenarios/bike-shop-return.json", &dir.join("serve"), &[]);
    let first = json!({"messages": [{"role": "user", "content": "Hi! My order #4471 came with a bent front wheel. Can you help?"}]});
    assert_eq!(
        post(&format!("{}/v1/chat/completions", served.url), &first.to_string(), &[]).0,
        200
    );
    let pid = served.child.id().to_string();
    assert!(Command::new("kill").args(["-INT", &pid]).status().unwrap().success());
    let status = served.child.wait().unwrap();
    assert!(status.success(), "{status:?}");
    let rows = String::from_utf8_lossy(&read(dir.join("serve/results.csv"))).into_owned();
    assert_eq!(rows.lines().count(), 2, "{rows}");
    assert!(dir.join("serve/traces/001-conversation-1.jsonl").exists());
}

/// An endpoint that cannot be reached stops the run with the reason, and `run` exits 2.
#[test]
fn an_unreachable_endpoint_is_said_and_exits_2() {
    let closed = TcpListener::bind("127.0.0.1:0").unwrap();
    let url = format!("http://{}/v1", closed.local_addr().unwrap());
    drop(closed);
    let assert = ctxbench()
        .args([
            "run",
            "scenarios/bike-shop-return.json",
            "--model",
            "m",
            "--retries",
            "0",
            "--endpoint",
        ])
        .arg(&url)
        .assert()
        .code(2);
    let stderr = String::from_utf8_lossy(&assert.get_output().stderr).into_owned();
    assert!(stderr.contains("the run stopped:") && stderr.contains(&url), "{stderr}");
}

#[test]
fn the_http_model_bills_the_cache_the_provider_reports_in_each_spelling() {
    let reply = |usage: Value| {
        json!({"choices": [{"index": 0, "message": {"role": "assistant", "content": "Hi."}, "finish_reason": "stop"}],
               "usage": usage})
        .to_string()
    };
    let (url, server) = fake_server(vec![
        // OpenAI: the cached part of prompt_tokens.
        (
            200,
            "",
            reply(
                json!({"prompt_tokens": 2000, "completion_tokens": 3, "prompt_tokens_details": {"cached_tokens": 1792}}),
            ),
        ),
        // DeepSeek: hit and miss, which sum to prompt_tokens.
        (
            200,
            "",
            reply(
                json!({"prompt_tokens": 2000, "completion_tokens": 3, "prompt_cache_hit_tokens": 1920, "prompt_cache_miss_tokens": 80}),
            ),
        ),
        // Anthropic's spelling: input_tokens leaves out what the cache read and wrote.
        (
            200,
            "",
            reply(
                json!({"input_tokens": 50, "output_tokens": 3, "cache_read_input_tokens": 1800, "cache_creation_input_tokens": 150}),
            ),
        ),
    ]);
    let mut m = model(&url);
    let figures: Vec<(u64, u64, u64)> = (0..3)
        .map(|_| {
            let u = ask(&mut m).expect("answers").usage;
            (u.prompt_tokens, u.cache_read_tokens, u.cache_write_tokens)
        })
        .collect();
    assert_eq!(figures, [(2000, 1792, 0), (2000, 1920, 0), (2000, 1800, 150)]);
    server.join().unwrap();
}

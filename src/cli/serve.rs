//! `ctxbench serve`: the sockets around [`ctxbench_harness::http::serve::Endpoint`]. Worker threads take
//! requests from one listener; Ctrl-C (or `POST /ctxbench/shutdown`) stops them, and the runs'
//! results and traces are written.

use std::io::{Read, Write};
use std::net::IpAddr;
use std::panic::{AssertUnwindSafe, catch_unwind};
use std::path::PathBuf;
use std::process::ExitCode;
use std::sync::atomic::{AtomicBool, Ordering};
use std::time::Duration;

use anyhow::{Context, anyhow};
use clap::Args;
use ctxbench_compact::compact::Strategy;
use ctxbench_compact::wire::Format;
use ctxbench_harness::http::error_body;
use ctxbench_harness::http::serve::{Body, Endpoint, Response, ServeConfig};
use ctxbench_harness::http::sse::Event;
use ctxbench_harness::human::thousands;
use ctxbench_harness::report::{Row, csv, json, table};
use ctxbench_harness::scenario::load_scenario;
use ctxbench_harness::settings::{RunSettings, price_text};

use super::files::{trace_lines, write_atomic};
use super::output::{errln, say, sayln};
use super::settings_args::{ServerArgs, WindowArg};

/// Serve a scenario as a model's endpoint (OpenAI chat, Anthropic Messages, OpenAI Responses), to
/// measure any agent from outside.
///
/// `POST /v1/chat/completions`, `POST /v1/messages` (Anthropic) and `POST /v1/responses` play the
/// scenario's scripted model against whatever history the client sends: each enforces the window
/// with the true counter, rejects broken pairing (the format's own rules) and over-window requests
/// with its API's error shapes, reports the simulated cache in its API's usage fields (Anthropic's
/// read at the request's own cache_control marks), and records every call. `GET /v1/models`
/// names the scenario; `GET /ctxbench/report` returns the figures so far; `POST /ctxbench/tool`
/// answers an agent's own tools from the scenario's fixtures. `"stream": true` is answered in
/// each API's server-sent events, paced by --time-scale. Each conversation (its first user
/// message and the body's `user`, or Anthropic's `metadata.user_id`) is its own run.
/// On Ctrl-C or `POST /ctxbench/shutdown` it writes results.csv, results.json and one trace per
/// run.
#[derive(Debug, Args)]
#[command(
    after_help = "Example:\n  ctxbench serve scenarios/bike-shop-return.json --port 8080\n  \
                        python examples/agent.py scenarios/bike-shop-return.json --base-url http://127.0.0.1:8080/v1\n  \
                        python examples/agent_anthropic.py scenarios/bike-shop-return.json --base-url http://127.0.0.1:8080\n  \
                        python examples/agents_sdk.py scenarios/bike-shop-return.json --base-url http://127.0.0.1:8080/v1"
)]
pub struct ServeArgs {
    /// The scenario to play.
    #[arg(value_name = "SCENARIO")]
    file: PathBuf,

    /// The port; 0 picks a free one (the `listening on` line says which).
    #[arg(long, default_value_t = 8080, value_parser = super::values::whole::<u16>)]
    port: u16,

    /// The address to listen on; anything but loopback exposes the endpoint to the network.
    #[arg(long, value_name = "ADDRESS", default_value = "127.0.0.1")]
    bind: IpAddr,

    #[command(flatten)]
    window: WindowArg,

    #[command(flatten)]
    server: ServerArgs,

    /// A provider's context management, as its server makes it, for every request of its route
    /// that asks for none: anthropic-compact, anthropic-clear or anthropic-clear-thinking
    /// (POST /v1/messages), openai-compact (POST /v1/responses); its token amounts are stated for
    /// the provider's model window and scale with the served one. Requests that carry
    /// `context_management` get what they ask.
    #[arg(long, value_name = "PRESET")]
    strategy: Option<String>,

    /// Request bodies over this many MiB are refused (413).
    #[arg(long, value_name = "MIB", default_value_t = 16, value_parser = super::values::positive::<usize>)]
    max_body_mib: usize,

    /// Real seconds a streamed reply takes per simulated second: its first token after the
    /// call's overhead and prefill, the rest at the decode rate (`--latency`); 0 sends at once.
    #[arg(long, value_name = "FACTOR", default_value_t = 0.0, value_parser = time_scale)]
    time_scale: f64,

    /// Threads answering requests.
    #[arg(long, value_name = "N", default_value_t = 8, value_parser = super::values::positive::<usize>)]
    threads: usize,

    /// Where the results and traces go on shutdown.
    #[arg(short, long, value_name = "DIR", default_value = "reports/serve")]
    out: PathBuf,
}

pub fn run(args: ServeArgs) -> anyhow::Result<ExitCode> {
    let scenario = load_scenario(&args.file, args.server.seed)?;
    let settings = args.server.apply(RunSettings {
        window: args.window.one("serve")?,
        ..RunSettings::served()
    });
    let edits = match &args.strategy {
        None => None,
        Some(name) => {
            let strategy: Strategy = name.parse().context("invalid --strategy")?;
            // A server compacts as a provider does: a preset of Anthropic's or OpenAI's.
            let route = [Format::Anthropic, Format::Responses]
                .into_iter()
                .find(|&f| ctxbench_harness::http::context::of_preset(&strategy, f).is_ok());
            if route.is_none() {
                let why = ctxbench_harness::http::context::of_preset(&strategy, Format::Anthropic)
                    .err()
                    .map(|e| e.to_string())
                    .unwrap_or_default();
                return Err(anyhow!("--strategy {name}: {why}"));
            }
            Some(strategy)
        }
    };
    let endpoint = Endpoint::new(
        &scenario,
        ServeConfig {
            settings,
            max_body: args.max_body_mib.saturating_mul(1024 * 1024),
            edits,
        },
    )?;
    let server = tiny_http::Server::http((args.bind, args.port)).map_err(|e| {
        let why = e
            .downcast_ref::<std::io::Error>()
            .map_or_else(|| e.to_string(), ctxbench_compact::input::io_words);
        anyhow!(
            "cannot listen on {}:{}: {why}; give another --port or --bind",
            args.bind,
            args.port
        )
    })?;
    let addr = server.server_addr().to_ip().context("the listener has no IP address")?;
    let stop = std::sync::Arc::new(AtomicBool::new(false));
    let on_signal = stop.clone();
    ctrlc::set_handler(move || on_signal.store(true, Ordering::SeqCst)).context("cannot catch Ctrl-C")?;
    sayln!("listening on http://{addr}");
    let settings = &endpoint.config().settings;
    errln!(
        "{} · window {} · tokenizer {} · overflow {} · price {} · cache {} · idle {} · summarizer {} · model {} · seed {} · POST http://{addr}/v1/chat/completions, /v1/messages or /v1/responses · Ctrl-C writes {}",
        scenario.name,
        thousands(settings.window.unwrap_or_default()),
        settings.tokenizer.as_str(),
        settings.overflow.as_str(),
        price_text(&settings.price),
        settings.cache,
        settings.idle_s.map_or("per request".to_owned(), |s| format!("{s} s")),
        settings.summarizer,
        settings.model_profile,
        settings.seed,
        args.out.display()
    );
    std::thread::scope(|s| {
        for _ in 0..args.threads.max(1) {
            s.spawn(|| serve_requests(&server, &endpoint, &stop, args.time_scale));
        }
    });
    let (rows, traces): (Vec<_>, Vec<_>) = endpoint.runs().into_iter().unzip();
    write_atomic(&args.out.join("results.csv"), &csv(&rows)?)?;
    write_atomic(
        &args.out.join("results.json"),
        serde_json::to_string_pretty(&json(&rows))?.as_bytes(),
    )?;
    for (i, (row, trace)) in rows.iter().zip(&traces).enumerate() {
        let name: String = row
            .label()
            .chars()
            .map(|c| {
                if c.is_ascii_alphanumeric() || "-_.".contains(c) {
                    c
                } else {
                    '_'
                }
            })
            .collect();
        write_atomic(
            &args.out.join("traces").join(format!("{:03}-{name}.jsonl", i + 1)),
            &trace_lines(trace)?,
        )?;
    }
    say!("{}", table(&rows));
    if rows
        .iter()
        .any(|r| r.settings.format.is_some_and(Format::counts_approximate))
    {
        errln!(
            "note: the token figures of runs in Anthropic Messages are o200k's approximation of Anthropic's tokenizer"
        );
    }
    errln!(
        "wrote {}/results.csv, results.json and {}",
        args.out.display(),
        ctxbench_harness::human::count(traces.len(), "trace")
    );
    Ok(ExitCode::SUCCESS)
}

/// `--time-scale`: a factor of 0 or more.
fn time_scale(text: &str) -> Result<f64, String> {
    let factor = super::values::decimal(text)?;
    if factor < 0.0 {
        return Err(format!("`{text}` is below 0; a time scale is 0 (no waiting) or more"));
    }
    Ok(factor)
}

/// One worker: answers requests until told to stop.
fn serve_requests(server: &tiny_http::Server, endpoint: &Endpoint<'_>, stop: &AtomicBool, time_scale: f64) {
    while !stop.load(Ordering::SeqCst) {
        let Ok(Some(mut request)) = server.recv_timeout(Duration::from_millis(100)) else {
            continue;
        };
        let response = answer(endpoint, &mut request);
        if response.shutdown {
            stop.store(true, Ordering::SeqCst);
        }
        // A client that went away is its own problem.
        let _ = match response.body {
            Body::Json(body) => request.respond(
                tiny_http::Response::from_string(body.to_string())
                    .with_status_code(response.status)
                    .with_header(header("application/json")),
            ),
            Body::Events(events) if request.http_version() == &tiny_http::HTTPVersion(1, 0) => {
                // HTTP/1.0 has no chunks to pace: the whole stream, at once.
                let text: String = events.iter().map(Event::wire).collect();
                request.respond(tiny_http::Response::from_string(text).with_header(header("text/event-stream")))
            }
            Body::Events(events) => send_events(request.into_writer(), &events, time_scale),
        };
    }
}

/// A stream of events as a chunked `text/event-stream` answer, each event its own chunk, flushed
/// when it is due: `at_s × time_scale` real seconds after the start.
fn send_events(mut out: Box<dyn Write + Send>, events: &[Event], time_scale: f64) -> std::io::Result<()> {
    let start = std::time::Instant::now();
    out.write_all(
        b"HTTP/1.1 200 OK\r\nContent-Type: text/event-stream\r\nCache-Control: no-cache\r\n\
          Transfer-Encoding: chunked\r\n\r\n",
    )?;
    out.flush()?;
    for event in events {
        let due = Duration::from_secs_f64((event.at_s * time_scale).max(0.0));
        if let Some(wait) = due.checked_sub(start.elapsed()) {
            std::thread::sleep(wait);
        }
        let text = event.wire();
        write!(out, "{:x}\r\n{text}\r\n", text.len())?;
        out.flush()?;
    }
    out.write_all(b"0\r\n\r\n")?;
    out.flush()
}

/// The answer to one request: refused when its body is too large or unreadable, else the
/// endpoint's (a panic becomes a 500, so no request brings the server down).
fn answer(endpoint: &Endpoint<'_>, request: &mut tiny_http::Request) -> Response {
    let max = endpoint.config().max_body;
    let url = request.url().to_owned();
    if request.body_length().is_some_and(|n| n > max) {
        return endpoint.too_large(&url);
    }
    let mut body = Vec::new();
    match request.as_reader().take(max as u64 + 1).read_to_end(&mut body) {
        Ok(_) if body.len() > max => return endpoint.too_large(&url),
        Ok(_) => {}
        Err(e) => {
            return Response {
                status: 400,
                body: Body::Json(error_body(
                    &format!(
                        "Cannot read the request body: {}.",
                        ctxbench_compact::input::io_words(&e)
                    ),
                    "invalid_request_error",
                    None,
                    None,
                )),
                shutdown: false,
            };
        }
    }
    let method = request.method().as_str().to_owned();
    let headers: Vec<(String, String)> = request
        .headers()
        .iter()
        .map(|h| (h.field.as_str().as_str().to_owned(), h.value.as_str().to_owned()))
        .collect();
    catch_unwind(AssertUnwindSafe(|| endpoint.handle(&method, &url, &headers, &body))).unwrap_or_else(|_| Response {
        status: 500,
        body: Body::Json(error_body(
            "ctxbench serve failed on this request.",
            "server_error",
            None,
            None,
        )),
        shutdown: false,
    })
}

fn header(content_type: &str) -> tiny_http::Header {
    tiny_http::Header::from_bytes(&b"Content-Type"[..], content_type.as_bytes()).expect("a constant, valid header")
}

//! `ctxbench import`: logged conversations become scenarios that replay them byte for byte,
//! with their facts found; quirks of real logs are taken; bad input is refused with its place.

use std::path::Path;

use ctxbench_compact::fact::FactKind;
use ctxbench_harness::import::{ImportOptions, Imported, import};
use ctxbench_harness::scenario::parse_scenario;
use serde_json::{Value, json};

use crate::cmd::{ctxbench, read, scratch};
use crate::fixtures::{fixture, json_files};

fn import_file(path: &Path, options: &ImportOptions) -> Imported {
    let text = std::fs::read_to_string(path).unwrap_or_else(|e| panic!("{}: {e}", path.display()));
    let name = path.file_stem().unwrap().to_string_lossy();
    import(&text, &path.display().to_string(), &name, options).unwrap_or_else(|e| panic!("{e}"))
}

/// Imports, loads and replays: every model call of the replay received the logged messages.
fn assert_faithful(path: &Path) -> Imported {
    let done = import_file(path, &ImportOptions::default());
    parse_scenario(&done.scenario.to_string(), "imported.json", 0).expect("the scenario validates");
    assert_eq!(
        done.fidelity.as_ref().map_err(ToString::to_string),
        Ok(&done.counts.steps),
        "{}: replaying with none sends the logged messages at every model call",
        path.display()
    );
    assert!(done.counts.steps > 0);
    done
}

#[test]
fn the_projects_fixtures_replay_byte_for_byte() {
    let chat = assert_faithful(&fixture("support-chat.json"));
    assert_eq!(chat.counts.steps, 8);
    let s = &chat.scenario;
    // The quirks, each taken where the format has a place for it.
    assert_eq!(s["tool_result_name"], json!(true));
    assert_eq!(
        s["preamble"][0]["role"], "assistant",
        "the greeting before the first request"
    );
    assert_eq!(
        s["requests"][2]["before"][0]["role"], "system",
        "the later system message"
    );
    assert!(s["requests"][1]["user"].is_array(), "content parts kept");
    assert_eq!(
        s["tools"]["search_parts"]["results"][0]["delay"],
        json!(1),
        "parallel results answered out of order"
    );
    assert_eq!(
        s["requests"][0]["steps"][1]["extra"],
        json!({"x-latency-ms": 812}),
        "unknown fields kept"
    );
    let coding = assert_faithful(&fixture("coding-agent.json"));
    assert_eq!(coding.counts.tool_calls, 31);
    assert!(
        coding
            .notes
            .iter()
            .any(|n| n.contains("the log ends before its result")),
        "the pending final call: {:?}",
        coding.notes
    );
}

#[test]
fn the_real_traces_replay_byte_for_byte() {
    let files = json_files(&fixture("traces"));
    assert_eq!(files.len(), 6, "the six real conversations of tests/fixtures/traces");
    for file in files {
        assert_faithful(&file);
    }
}

/// A real mini-swe-agent run: the files its bash commands wrote (heredocs, a copy, a Python
/// script's `open(…, 'w')`, a redirection) become artifact facts in the order first written,
/// each needed by the last step; files it only read do not.
#[test]
fn the_files_an_agent_wrote_are_artifacts_needed_at_the_end() {
    let done = assert_faithful(&fixture("traces/mini-swe-deepseek__django__django-14915.json"));
    let artifacts: Vec<&str> = done
        .facts
        .iter()
        .filter(|f| f.kind == FactKind::Artifact)
        .map(|f| f.value.as_str())
        .collect();
    assert_eq!(
        artifacts,
        [
            "/testbed/reproduce_issue.py",
            "/testbed/test_hashable.py",
            "/testbed/test_fix.py",
            "django/forms/models.py.backup",
            "patch_modelchoiceiteratorvalue.py",
            "django/forms/models.py",
            "/testbed/test_comprehensive.py",
            "/testbed/run_simple_test.py",
            "/testbed/test_backward_compat.py",
            "/testbed/test_backward_compat2.py",
            "patch.txt",
        ]
    );
    let requests = done.scenario["requests"].as_array().expect("requests");
    let steps = requests.last().expect("a request")["steps"].as_array().expect("steps");
    let needs = &steps.last().expect("a step")["needs"];
    for artifact in &artifacts {
        assert!(
            needs.as_array().is_some_and(|n| n.iter().any(|v| v == artifact)),
            "{artifact}: {needs}"
        );
        assert_eq!(done.scenario["facts"][artifact]["kind"], "artifact");
    }
    assert!(
        !artifacts.contains(&"/testbed/tests/model_forms/test_modelchoicefield.py"),
        "a file it only read"
    );
}

/// A conversation with the quirks `walk` takes: two user messages in a row, an assistant message
/// after a reply, a null tool result, reused ids, a tool with no schema.
fn quirky() -> Value {
    json!({"messages": [
        {"role": "system", "content": "Be brief."},
        {"role": "user", "content": "Order 88123 please."},
        {"role": "user", "content": "Sorry, I mean order 88124."},
        {"role": "assistant", "content": null, "tool_calls": [
            {"id": "c1", "type": "function", "function": {"name": "lookup", "arguments": "{\"order\": 88124}"}}]},
        {"role": "tool", "tool_call_id": "c1", "content": null},
        {"role": "assistant", "content": null, "tool_calls": [
            {"id": "c1", "type": "function", "function": {"name": "lookup", "arguments": "{\"order\":88124,\"full\":true}"}}]},
        {"role": "tool", "tool_call_id": "c1", "content": "Order 88124: parcel PX-4410-Z, 2 items."},
        {"role": "assistant", "content": "Parcel PX-4410-Z."},
        {"role": "assistant", "content": "Anything else?"},
        {"role": "user", "content": "Where is PX-4410-Z now?"},
        {"role": "assistant", "content": "", "tool_calls": [
            {"id": "c2", "type": "function", "function": {"name": "track", "arguments": "{\"parcel\":\"PX-4410-Z\"}"}}]},
        {"role": "tool", "tool_call_id": "c2", "content": "In transit."},
        {"role": "assistant", "content": "In transit."}
    ]})
}

#[test]
fn real_log_quirks_are_taken_and_the_facts_found() {
    let done = import(
        &quirky().to_string(),
        "quirky.json",
        "quirky",
        &ImportOptions::default(),
    )
    .expect("imports");
    assert_eq!(done.fidelity.as_ref().map_err(ToString::to_string), Ok(&5));
    let s = &done.scenario;
    assert_eq!(s["requests"][0]["user"], "Sorry, I mean order 88124.");
    assert_eq!(s["requests"][0]["before"][0]["content"], "Order 88123 please.");
    assert_eq!(
        s["requests"][1]["before"][0]["content"], "Anything else?",
        "an assistant message after a reply"
    );
    assert_eq!(s["tools"]["lookup"]["results"][0]["text"], Value::Null);
    assert_eq!(
        s["tools"]["track"]["parameters"],
        json!({"type": "object", "properties": {"parcel": {"type": "string"}}, "required": ["parcel"]}),
        "inferred from the calls"
    );
    let facts: Vec<(&str, Vec<(usize, usize)>)> = done
        .facts
        .iter()
        .map(|f| (f.value.as_str(), f.needed_by.clone()))
        .collect();
    assert_eq!(
        facts,
        [("88124", vec![(0, 0), (0, 1)]), ("PX-4410-Z", vec![(0, 2), (1, 0)])],
        "88123 is never used again; the first step uses the order, the reply and the next request the parcel"
    );
    assert_eq!(s["requests"][1]["steps"][0]["needs"], json!(["PX-4410-Z"]));
}

#[test]
fn what_cannot_be_replayed_is_refused_with_its_place() {
    let mut mid_request = quirky();
    mid_request["messages"]
        .as_array_mut()
        .unwrap()
        .insert(5, json!({"role": "system", "content": "Hurry."}));
    let err = import(&mid_request.to_string(), "q.json", "q", &ImportOptions::default()).unwrap_err();
    assert!(
        err.to_string()
            .starts_with("q.json: messages[5]: an instruction in the middle of a request"),
        "{err}"
    );
    let mut calls_after_reply = quirky();
    calls_after_reply["messages"][8] = calls_after_reply["messages"][5].clone();
    calls_after_reply["messages"]
        .as_array_mut()
        .unwrap()
        .insert(9, json!({"role": "tool", "tool_call_id": "c1", "content": "x"}));
    let err = import(&calls_after_reply.to_string(), "q.json", "q", &ImportOptions::default()).unwrap_err();
    assert!(
        err.to_string()
            .starts_with("q.json: messages[8]: the assistant calls tools right after its own reply"),
        "{err}"
    );
}

#[test]
fn import_writes_scenarios_that_compare_runs() {
    let dir = scratch("import");
    let out = dir.join("imported");
    let assert = ctxbench()
        .args([
            "import",
            "tests/fixtures/support-chat.json",
            "tests/fixtures/coding-agent.json",
            "-o",
        ])
        .arg(&out)
        .args(["--refetchable", "get_*,search_*"])
        .assert()
        .success();
    let stdout = String::from_utf8_lossy(&assert.get_output().stdout).into_owned();
    assert!(stdout.contains("replays byte for byte (8 calls)"), "{stdout}");
    let chat: Value = serde_json::from_slice(&read(out.join("support-chat.json"))).expect("json");
    assert_eq!(chat["tools"]["get_order"]["refetchable"], json!(true));
    assert_eq!(chat["tools"]["search_parts"]["refetchable"], json!(true));
    assert_eq!(
        chat["tools"].get("create_return").and_then(|t| t.get("refetchable")),
        None
    );
    ctxbench().arg("validate").arg(&out).assert().success();
    let results = dir.join("results");
    ctxbench()
        .arg("compare")
        .arg(&out)
        .args(["--window", "8000", "--no-tune", "--seeds", "1", "-o"])
        .arg(&results)
        .assert()
        .success();
    let csv = String::from_utf8_lossy(&read(results.join("results.csv"))).into_owned();
    let rows = csv.lines().count() - 1;
    assert_eq!(
        rows,
        2 * (ctxbench_harness::settings::STANDARD_STRATEGIES.len() + ctxbench_harness::settings::NATIVE_DEFAULTS.len()),
        "every standard strategy and native default on both"
    );
}

#[test]
fn explain_prints_each_fact_and_where_it_is_needed() {
    let dir = scratch("import-explain");
    let assert = ctxbench()
        .args(["import", "tests/fixtures/support-chat.json", "--explain", "-o"])
        .arg(dir.join("out"))
        .assert()
        .success();
    let stdout = String::from_utf8_lossy(&assert.get_output().stdout).replace(&dir.display().to_string(), "OUT");
    insta::assert_snapshot!(stdout);
    let quirky_file = dir.join("quirky.json");
    std::fs::write(&quirky_file, quirky().to_string()).unwrap();
    let done = import_file(&quirky_file, &ImportOptions::default());
    insta::assert_snapshot!("explain_quirky", done.explain());
}

#[test]
fn bad_input_names_the_file_and_place_and_writes_nothing() {
    let dir = scratch("import-bad");
    let bad = dir.join("bad.json");
    std::fs::write(
        &bad,
        "{\"messages\": [\n  {\"role\": \"user\", \"content\": \"hi\"},\n  oops\n]}",
    )
    .unwrap();
    let out = dir.join("out");
    let assert = ctxbench()
        .args(["import", "tests/fixtures/support-chat.json"])
        .arg(&bad)
        .arg("-o")
        .arg(&out)
        .assert()
        .code(2);
    let stderr = String::from_utf8_lossy(&assert.get_output().stderr).into_owned();
    assert!(stderr.contains("bad.json:3:3: invalid JSON"), "{stderr}");
    assert!(!out.exists(), "nothing written when one input is bad");

    let lines = dir.join("logs.jsonl");
    let good = serde_json::to_string(&quirky()).unwrap();
    std::fs::write(&lines, format!("{good}\n\n{{\"messages\": 3}}\n")).unwrap();
    let assert = ctxbench()
        .arg("import")
        .arg(&lines)
        .arg("-o")
        .arg(&out)
        .assert()
        .code(2);
    let stderr = String::from_utf8_lossy(&assert.get_output().stderr).into_owned();
    assert!(
        stderr.contains("logs.jsonl line 3: messages: expected an array"),
        "{stderr}"
    );

    std::fs::write(&lines, format!("{good}\n{good}\n")).unwrap();
    ctxbench()
        .arg("import")
        .arg(&lines)
        .arg("-o")
        .arg(&out)
        .assert()
        .success();
    assert!(
        out.join("logs-1.json").exists() && out.join("logs-2.json").exists(),
        "one scenario per line"
    );

    let broken = dir.join("broken.json");
    std::fs::write(
        &broken,
        r#"[{"role":"user","content":"hi"},{"role":"tool","tool_call_id":"x","content":"?"}]"#,
    )
    .unwrap();
    let assert = ctxbench()
        .arg("import")
        .arg(&broken)
        .arg("-o")
        .arg(&out)
        .assert()
        .code(2);
    let stderr = String::from_utf8_lossy(&assert.get_output().stderr).into_owned();
    assert!(stderr.contains("broken.json: messages[1]"), "{stderr}");
}

#[test]
fn a_call_log_keeps_each_calls_usage_and_puts_its_cache_beside_the_simulated_one() {
    let log = fixture("calls/support.calls.jsonl");
    let text = std::fs::read_to_string(&log).expect("the call log");
    assert!(ctxbench_harness::import::is_call_log(&text));
    let found = ctxbench_harness::import::conversations(&text, "support.calls.jsonl").expect("a call log");
    assert_eq!(
        found.iter().map(|c| c.lines.clone()).collect::<Vec<_>>(),
        [vec![1, 3, 4], vec![2, 5]]
    );
    let options = ImportOptions {
        replay: ctxbench_harness::settings::RunSettings {
            price: ctxbench_harness::billing::price::Price::named("deepseek-chat")
                .cloned()
                .map(Into::into),
            cache: ctxbench_harness::billing::price::Price::named("deepseek-chat")
                .expect("preset")
                .cache
                .clone(),
            ..ImportOptions::default().replay
        },
        ..ImportOptions::default()
    };
    let mut logged_total = (0, 0);
    for (conversation, (prompt, cached)) in found.iter().zip([(787, 384), (376, 128)]) {
        let done = ctxbench_harness::import::import_logged(conversation, "support.calls.jsonl", "c", &options)
            .expect("imports");
        assert_eq!(
            done.fidelity.as_ref().map_err(ToString::to_string),
            Ok(&conversation.lines.len()),
            "replays byte for byte"
        );
        let cache = done.cache.expect("a call log that replays gives its cache");
        // The logged side is the file's own figures, summed by hand in its README.
        assert_eq!(cache.logged, (prompt, cached));
        logged_total = (logged_total.0 + prompt, logged_total.1 + cached);
        // The simulated side, DeepSeek's cache (64-token blocks, replies stored): the first call
        // is cold; each later one reads the whole previous request and its reply, down to the
        // block, and never more than it sends (less the 3 tokens that prime the reply).
        let calls = &cache.calls;
        assert_eq!(calls[0].2, 0);
        for pair in calls.windows(2) {
            let (previous, (_, prompt, read)) = (pair[0].1, pair[1]);
            assert!(read % 64 == 0 && read + 3 <= prompt, "{pair:?}");
            assert!(read + 64 + 3 > previous, "reads all of the previous request: {pair:?}");
        }
        assert_eq!(
            cache.simulated,
            (calls.iter().map(|c| c.1).sum(), calls.iter().map(|c| c.2).sum())
        );
        // The usage is kept in the scenario, step by step.
        let kept: Vec<u64> = done.scenario["requests"]
            .as_array()
            .expect("requests")
            .iter()
            .flat_map(|r| r["steps"].as_array().cloned().unwrap_or_default())
            .map(|s| {
                s["logged_usage"]["cached_tokens"]
                    .as_u64()
                    .expect("logged usage on every step")
            })
            .collect();
        assert_eq!(kept, calls.iter().map(|c| c.0.cache_read_tokens).collect::<Vec<_>>());
    }
    assert_eq!(logged_total, (1163, 512));

    // On the command line: each conversation's rates, then the total.
    let out = scratch("import-calls");
    let output = ctxbench()
        .args(["import", "--price", "deepseek-chat", "-o"])
        .arg(&out)
        .arg(&log)
        .output()
        .expect("runs");
    let stdout = String::from_utf8_lossy(&output.stdout);
    assert!(
        output.status.success(),
        "{stdout}{}",
        String::from_utf8_lossy(&output.stderr)
    );
    for expected in [
        "cache hit rate: logged 48.8% (384 of 787 prompt tokens) · simulated ",
        "cache hit rate: logged 34.0% (128 of 376 prompt tokens) · simulated ",
        "cache hit rate over 2 conversations: logged 44.0% (512 of 1,163 prompt tokens) · simulated ",
        "with cache prefix:block=64,min=64,ttl=3600,output=true",
    ] {
        assert!(stdout.contains(expected), "{expected:?} in\n{stdout}");
    }
    let scenario = std::fs::read_to_string(out.join("support.calls-1.json")).expect("written");
    assert!(scenario.contains("\"logged_usage\""));
    ctxbench()
        .args(["validate"])
        .arg(out.join("support.calls-1.json"))
        .assert()
        .success();
}

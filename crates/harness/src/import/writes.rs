//! The files an agent changed, read from its tool calls' arguments: an editor tool that writes
//! (`str_replace_editor` with `create`, `str_replace` or `insert`; `write_file`, `edit`, `Write`,
//! `Edit`, `MultiEdit`, with a `path` or `file_path`), a shell command (a `command` or `cmd`
//! field: [`shell_writes`]) and Python's `open(FILE, 'w')` in it. Each becomes an `artifact`
//! fact, needed by the conversation's last step (a final "which files did you change?").
//!
//! A path is kept only when scenario loading would take it as an artifact (a `/` or an
//! extension) and the call's raw arguments hold it as written, so the loaded scenario finds it
//! there.

use std::collections::HashSet;

use ctxbench_compact::fact::FactKind;
use serde_json::Value;

use super::facts::FoundFact;
use super::shell_writes::shell_writes;

/// Editor tools whose `command` says what they do (not a shell command).
const EDITORS: &[&str] = &["str_replace_editor", "str_replace_based_edit_tool"];
/// What those editors do that changes a file.
const EDITS: &[&str] = &["create", "str_replace", "insert"];
/// Tools that write the file they name, lower-cased.
const WRITERS: &[&str] = &[
    "write_file",
    "write",
    "edit",
    "edit_file",
    "create_file",
    "multiedit",
    "multi_edit",
    "notebookedit",
];

/// The paths one tool call writes to, in the order its arguments name them.
pub(crate) fn written_paths(name: &str, arguments: &str) -> Vec<String> {
    let Ok(Value::Object(args)) = serde_json::from_str::<Value>(arguments) else {
        return Vec::new();
    };
    let text = |key: &str| args.get(key).and_then(Value::as_str);
    let path = || ["path", "file_path", "notebook_path"].into_iter().find_map(text);
    let lower = name.to_ascii_lowercase();
    let found: Vec<String> = if EDITORS.contains(&lower.as_str()) {
        let edits = text("command").is_some_and(|c| EDITS.contains(&c));
        path().filter(|_| edits).map(str::to_owned).into_iter().collect()
    } else if WRITERS.contains(&lower.as_str()) {
        path().map(str::to_owned).into_iter().collect()
    } else if let Some(script) = shell_text(args.get("command").or_else(|| args.get("cmd"))) {
        let mut found = shell_writes(&script);
        found.extend(python_writes(&script));
        found
    } else {
        Vec::new()
    };
    found
        .into_iter()
        .filter(|p| crate::scenario::artifact::why_not_a_path(p).is_none() && arguments.contains(p.as_str()))
        .collect()
}

/// A shell command given as a string, or as words (`["bash", "-lc", "SCRIPT"]`: the script).
fn shell_text(command: Option<&Value>) -> Option<String> {
    match command? {
        Value::String(s) => Some(s.clone()),
        Value::Array(words) => {
            let words: Vec<&str> = words.iter().filter_map(Value::as_str).collect();
            match words.iter().position(|w| *w == "-c" || *w == "-lc") {
                Some(c) => words.get(c + 1).map(|s| (*s).to_owned()),
                None => Some(words.iter().map(|w| format!("'{w}'")).collect::<Vec<_>>().join(" ")),
            }
        }
        _ => None,
    }
}

/// The files Python's `open(FILE, MODE)` opens for writing (a mode with `w`, `a`, `x` or `+`),
/// both given as string literals, anywhere in `text` (a heredoc's script, `python -c`).
fn python_writes(text: &str) -> Vec<String> {
    // Quotes escaped for the shell (`python -c "open(\"f.py\", 'w')"`) as Python reads them.
    let text = text.replace("\\\"", "\"").replace("\\'", "'");
    let mut found = Vec::new();
    let mut rest = text.as_str();
    while let Some(at) = rest.find("open(") {
        let before = rest[..at].chars().next_back();
        let after = &rest[at + 5..];
        rest = after;
        if before.is_some_and(|c| c.is_alphanumeric() || c == '_') {
            continue;
        }
        let Some((file, after)) = literal(after.trim_start()) else {
            continue;
        };
        let Some(after) = after.trim_start().strip_prefix(',') else {
            continue;
        };
        let after = after.trim_start();
        let after = after
            .strip_prefix("mode")
            .map_or(after, |a| a.trim_start().trim_start_matches('='));
        let Some((mode, _)) = literal(after.trim_start()) else {
            continue;
        };
        if mode.contains(['w', 'a', 'x', '+']) {
            found.push(file.to_owned());
        }
    }
    found
}

/// A Python string literal at the start of `text` (`'…'`, `"…"`, `r'…'`) and what follows it.
fn literal(text: &str) -> Option<(&str, &str)> {
    let text = text.strip_prefix('r').unwrap_or(text);
    let quote = text.chars().next().filter(|q| *q == '\'' || *q == '"')?;
    let body = &text[1..];
    let end = body.find(quote)?;
    let value = &body[..end];
    (!value.contains('\\')).then_some((value, &body[end + 1..]))
}

/// The paths the agent wrote to, each once, in the order first written.
#[derive(Debug, Default)]
pub(crate) struct Writes {
    /// `(path, index of the assistant message, (request, step))`.
    pub written: Vec<(String, usize, (usize, usize))>,
    seen: HashSet<String>,
}

impl Writes {
    /// A model turn's call, at message `index`, step `step`.
    pub fn call(&mut self, name: &str, arguments: &str, index: usize, step: (usize, usize)) {
        for path in written_paths(name, arguments) {
            if self.seen.insert(path.clone()) {
                self.written.push((path, index, step));
            }
        }
    }

    /// The facts with the written paths as `artifact` facts, each needed by `last` (the last
    /// step), in order of first appearance. A path written by `last` itself is left out: a step
    /// cannot need what it writes; a fact found with the same value becomes the artifact.
    pub fn into_facts(self, mut facts: Vec<FoundFact>, last: Option<(usize, usize)>) -> Vec<FoundFact> {
        let Some(last) = last else { return facts };
        for (path, index, step) in self.written {
            if step >= last {
                continue;
            }
            match facts.iter_mut().find(|f| f.value == path) {
                Some(fact) => {
                    fact.kind = FactKind::Artifact;
                    if !fact.needed_by.contains(&last) {
                        fact.needed_by.push(last);
                    }
                }
                None => facts.push(FoundFact {
                    value: path,
                    kind: FactKind::Artifact,
                    source: index,
                    needed_by: vec![last],
                }),
            }
        }
        facts.sort_by_key(|f| f.source);
        facts
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn args(v: Value) -> String {
        v.to_string()
    }

    #[test]
    fn editors_and_writers_write_their_path() {
        let e =
            |command: &str| args(serde_json::json!({"command": command, "path": "/repo/src/a.py", "file_text": "x"}));
        assert_eq!(written_paths("str_replace_editor", &e("create")), ["/repo/src/a.py"]);
        assert_eq!(
            written_paths("str_replace_editor", &e("str_replace")),
            ["/repo/src/a.py"]
        );
        assert_eq!(written_paths("str_replace_editor", &e("insert")), ["/repo/src/a.py"]);
        assert!(
            written_paths("str_replace_editor", &e("view")).is_empty(),
            "a view reads"
        );
        let w = args(serde_json::json!({"file_path": "src/b.rs", "content": "fn main() {}"}));
        for name in ["Write", "Edit", "MultiEdit", "write_file", "edit"] {
            assert_eq!(written_paths(name, &w), ["src/b.rs"], "{name}");
        }
        assert!(written_paths("Read", &w).is_empty(), "a read");
        assert!(written_paths("Glob", &args(serde_json::json!({"path": "src/c.py"}))).is_empty());
    }

    #[test]
    fn shell_commands_and_python_opens_write_theirs() {
        let bash = |command: &str| written_paths("bash", &args(serde_json::json!({"command": command})));
        assert_eq!(bash("cat > /testbed/t.py << 'EOF'\nprint(1)\nEOF"), ["/testbed/t.py"]);
        assert_eq!(
            bash(
                "cat > fix.py <<'EOF'\nwith open('django/forms/models.py', 'r') as f:\n    s = f.read()\nwith open('django/forms/models.py', 'w') as f:\n    f.write(s)\nEOF"
            ),
            ["fix.py", "django/forms/models.py"]
        );
        assert_eq!(
            bash("python -c \"open(\\\"out/r.json\\\", mode='a').write('x')\""),
            ["out/r.json"]
        );
        for read in [
            "cat /testbed/setup.py",
            "python -c \"print(open('a/b.py').read())\"",
            "grep -rn open( src/x.py > /dev/null",
            "urlopen('http://x/y.py', 'w')",
            "cat > Makefile <<'EOF'\nall:\nEOF",
        ] {
            assert!(bash(read).is_empty(), "{read}");
        }
        let codex = args(serde_json::json!({"command": ["bash", "-lc", "echo x >> notes/todo.md"]}));
        assert_eq!(written_paths("shell", &codex), ["notes/todo.md"]);
        assert!(written_paths("bash", "not json").is_empty());
    }

    #[test]
    fn each_path_is_kept_once_in_the_order_first_written_and_needed_last() {
        let mut writes = Writes::default();
        let call = |c: &str| args(serde_json::json!({"command": c}));
        writes.call("bash", &call("touch b.py a.py"), 2, (0, 0));
        writes.call("bash", &call("echo 1 >> a.py; touch c.py"), 4, (0, 1));
        writes.call("bash", &call("touch last.py"), 6, (0, 2));
        let found = FoundFact {
            value: "c.py".into(),
            kind: FactKind::Path,
            source: 3,
            needed_by: vec![(0, 1)],
        };
        let facts = writes.into_facts(vec![found], Some((0, 2)));
        let got: Vec<_> = facts
            .iter()
            .map(|f| (f.value.as_str(), f.kind, f.source, f.needed_by.clone()))
            .collect();
        assert_eq!(
            got,
            [
                ("b.py", FactKind::Artifact, 2, vec![(0, 2)]),
                ("a.py", FactKind::Artifact, 2, vec![(0, 2)]),
                ("c.py", FactKind::Artifact, 3, vec![(0, 1), (0, 2)]),
            ]
        );
    }
}

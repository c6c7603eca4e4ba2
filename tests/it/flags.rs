//! The flags that `compare`, `run`, `sweep` and `serve` share (issue 44): their help, and what
//! each command does with a list or range of values, which only `sweep` runs.

use crate::cmd::ctxbench;

/// `ctxbench <command> --help`'s text.
fn help(command: &str) -> String {
    let output = ctxbench().args([command, "--help"]).output().expect("runs");
    assert!(output.status.success(), "{command} --help");
    String::from_utf8(output.stdout).expect("UTF-8")
}

#[test]
fn compare_help_is_stable() {
    insta::assert_snapshot!(help("compare"));
}

#[test]
fn run_help_is_stable() {
    insta::assert_snapshot!(help("run"));
}

#[test]
fn sweep_help_is_stable() {
    insta::assert_snapshot!(help("sweep"));
}

#[test]
fn serve_help_is_stable() {
    insta::assert_snapshot!(help("serve"));
}

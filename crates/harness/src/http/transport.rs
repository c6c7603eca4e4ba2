//! A call that never got an answer, in words: what went wrong between ctxbench and the server
//! (nothing listening, no such host, no answer in time), with what to check, never ureq's or the
//! OS's own text ("io: Connection refused (os error 111)").

use std::time::Duration;

use crate::error::io_words;

/// Why a call to `url` got no answer, `timeout` being a call's time limit.
pub(crate) fn transport_words(error: &ureq::Error, url: &str, timeout: Duration) -> String {
    let address = address(url);
    match error {
        ureq::Error::Io(io) if io.kind() == std::io::ErrorKind::ConnectionRefused => {
            format!("nothing answers at {address}: is the server running?")
        }
        ureq::Error::Io(io) => format!("{address}: {}", io_words(io)),
        ureq::Error::Timeout(_) => format!(
            "no answer within {} s (--timeout); is the server at {address} overloaded?",
            timeout.as_secs()
        ),
        ureq::Error::HostNotFound => format!("no such host: {address}; check the --endpoint URL"),
        ureq::Error::BadUri(_) => {
            format!("{url} is not a URL ctxbench can call; give one like http://127.0.0.1:8080/v1 to --endpoint")
        }
        ureq::Error::ConnectionFailed => format!("cannot connect to {address}: is the server running?"),
        other => other.to_string(),
    }
}

/// `host:port` of a URL (`127.0.0.1:1` of `http://127.0.0.1:1/v1/chat/completions`).
fn address(url: &str) -> &str {
    let rest = url.split_once("://").map_or(url, |(_, rest)| rest);
    rest.split(['/', '?']).next().unwrap_or(rest)
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn a_server_that_is_not_there_is_said_in_words() {
        let refused = ureq::Error::Io(std::io::ErrorKind::ConnectionRefused.into());
        let url = "http://127.0.0.1:1/v1/chat/completions";
        let words = transport_words(&refused, url, Duration::from_secs(120));
        assert_eq!(words, "nothing answers at 127.0.0.1:1: is the server running?");
        let lost = transport_words(&ureq::Error::HostNotFound, "https://api.exmaple.com/v1", Duration::ZERO);
        assert_eq!(lost, "no such host: api.exmaple.com; check the --endpoint URL");
    }
}

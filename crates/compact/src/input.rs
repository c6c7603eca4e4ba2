//! Files as the tools read them, with what can be wrong before any JSON said in words: a folder
//! where a file belongs, an empty file, bytes that are not UTF-8 (at their line and column). A
//! UTF-8 byte-order mark, which editors on Windows write, is read past.

use std::io::{BufRead, Read};
use std::path::Path;

use crate::error::Error;

/// The byte-order mark some editors put at the start of a UTF-8 file.
const BOM: &[u8] = b"\xEF\xBB\xBF";

/// What is wrong with `path` before its content is read, if anything: a folder, an empty file,
/// or one that cannot be opened.
pub fn check_file(path: &Path) -> Result<(), Error> {
    let name = path.display().to_string();
    let said = |msg: String| Error::File {
        source_name: name.clone(),
        msg,
    };
    match std::fs::metadata(path) {
        Err(e) if e.kind() == std::io::ErrorKind::NotFound => Err(said(io_words(&e))),
        Err(e) => Err(said(format!("cannot be read: {}", io_words(&e)))),
        Ok(m) if m.is_dir() => Err(said("is a folder; give a file".into())),
        Ok(m) if m.is_file() && m.len() == 0 => Err(said("is empty; a JSON document was expected".into())),
        Ok(_) => Ok(()),
    }
}

/// A file's text: checked as [`check_file`] does, its byte-order mark dropped, and bytes that are
/// not UTF-8 refused at their place.
pub fn read_text(path: &Path) -> Result<String, Error> {
    check_file(path)?;
    let name = path.display().to_string();
    let bytes = std::fs::read(path).map_err(|e| Error::File {
        source_name: name.clone(),
        msg: format!("cannot be read: {}", io_words(&e)),
    })?;
    text_of(bytes, &name)
}

/// `bytes` as text, `name` naming them in errors (see [`read_text`]).
pub fn text_of(mut bytes: Vec<u8>, name: &str) -> Result<String, Error> {
    if bytes.starts_with(BOM) {
        bytes.drain(..BOM.len());
    }
    String::from_utf8(bytes).map_err(|e| {
        let bytes = e.as_bytes();
        let at = e.utf8_error().valid_up_to();
        let before = &bytes[..at];
        let line = 1 + before.iter().filter(|&&b| b == b'\n').count();
        let start = before.iter().rposition(|&b| b == b'\n').map_or(0, |i| i + 1);
        let column = 1 + String::from_utf8_lossy(&before[start..]).chars().count();
        Error::Json {
            source_name: name.to_owned(),
            line,
            column,
            msg: format!("not UTF-8 text (the byte 0x{:02X}); save the file as UTF-8", bytes[at]),
        }
    })
}

/// An error of the OS in words, without Rust's "(os error 2)": what a reader of the message needs,
/// to be put after the path or address it is about (`PATH: no such file or folder`). Every
/// file or socket error that reaches a user is said through this one function.
pub fn io_words(error: &std::io::Error) -> String {
    use std::io::ErrorKind as Kind;
    let text = error.to_string();
    // An error made with a message of its own (not the OS's) says it best itself.
    if error.get_ref().is_none() {
        let said = match error.kind() {
            Kind::NotFound => "no such file or folder",
            Kind::PermissionDenied => "permission denied",
            Kind::IsADirectory => "is a folder, not a file",
            Kind::NotADirectory => "a part of the path is a file, not a folder",
            Kind::AlreadyExists => "already exists",
            Kind::DirectoryNotEmpty => "is a folder that is not empty",
            Kind::StorageFull => "the disk is full",
            Kind::ReadOnlyFilesystem => "the disk is read-only",
            Kind::ConnectionRefused => "nothing answers there (the connection was refused): is the server running?",
            Kind::ConnectionReset | Kind::ConnectionAborted => "the other side closed the connection",
            Kind::TimedOut => "no answer in time",
            Kind::AddrInUse => "the address is in use: another program listens there",
            Kind::AddrNotAvailable => "the address is not one of this machine's",
            Kind::BrokenPipe => "the reader closed the pipe",
            Kind::InvalidData if text.contains("UTF-8") => "not UTF-8 text; save it as UTF-8",
            _ => "",
        };
        if !said.is_empty() {
            return said.to_owned();
        }
    }
    text.split(" (os error").next().unwrap_or(&text).to_owned()
}

/// The buffer a body is read through: 256 KiB.
pub const BUFFER: usize = 1 << 18;

/// `inner` as `ctxbench compact` reads a body: through a [`BUFFER`]-sized buffer, past a
/// leading byte-order mark, for [`crate::RequestBody::parse_reader_as`] (the benches read
/// through it too, so that a slower input path shows there).
pub fn buffered<R: Read>(inner: R) -> std::io::Result<std::io::BufReader<R>> {
    let mut reader = std::io::BufReader::with_capacity(BUFFER, inner);
    skip_bom(&mut reader)?;
    Ok(reader)
}

/// Reads past a leading byte-order mark, peeking with the reader's own buffer: what follows is
/// read through the same buffered reader, with no layer between it and the parser (a wrapping
/// reader, asked for one byte at a time by a streaming parser, doubled `compact`'s time on a
/// large file). A first read too short to tell (a pipe's first bytes, a prefix of the mark) is
/// completed by reading the mark's length; what is not the mark is then an error, since no
/// request body begins that way.
pub fn skip_bom<R: BufRead>(reader: &mut R) -> std::io::Result<()> {
    let head = reader.fill_buf()?;
    if head.starts_with(BOM) {
        reader.consume(BOM.len());
        return Ok(());
    }
    if head.is_empty() || head.len() >= BOM.len() || !BOM.starts_with(head) {
        return Ok(());
    }
    let mut start = Vec::with_capacity(BOM.len());
    reader.by_ref().take(BOM.len() as u64).read_to_end(&mut start)?;
    if start == BOM {
        Ok(())
    } else {
        Err(std::io::Error::new(
            std::io::ErrorKind::InvalidData,
            "the input begins with bytes that are neither a byte-order mark nor JSON",
        ))
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn os_errors_are_said_in_words() {
        use std::io::{Error, ErrorKind};
        assert_eq!(io_words(&Error::from_raw_os_error(2)), "no such file or folder");
        assert_eq!(io_words(&Error::from(ErrorKind::PermissionDenied)), "permission denied");
        // One of an unnamed kind loses only Rust's number.
        assert_eq!(io_words(&Error::from_raw_os_error(7)), "Argument list too long");
        // An error with words of its own keeps them.
        assert_eq!(
            io_words(&Error::new(ErrorKind::NotFound, "no tool named x")),
            "no tool named x"
        );
    }

    #[test]
    fn what_is_wrong_before_the_json_is_said_with_its_place() {
        assert_eq!(text_of(b"\xEF\xBB\xBF{}".to_vec(), "f").unwrap(), "{}");
        let e = text_of(b"{\n  \"a\": \"\xC3\xA9\xFF\"}".to_vec(), "f.json").unwrap_err();
        assert_eq!(
            e.to_string(),
            "f.json:2:10: not UTF-8 text (the byte 0xFF); save the file as UTF-8"
        );
        let after = |bytes: &[u8]| {
            let mut reader = bytes;
            skip_bom(&mut reader).map(|()| String::from_utf8_lossy(reader).into_owned())
        };
        assert_eq!(after(b"\xEF\xBB\xBF{\"x\": 1}").unwrap(), "{\"x\": 1}");
        assert_eq!(after(b"{}").unwrap(), "{}");
        assert_eq!(after(b"").unwrap(), "");
        // A first read that stops inside the mark: the rest of the mark is read.
        let split = |first: &'static [u8], rest: &'static [u8]| {
            let mut reader = std::io::BufReader::with_capacity(1, first.chain(rest));
            skip_bom(&mut reader).map(|()| {
                let mut out = String::new();
                reader.read_to_string(&mut out).map(|_| out)
            })
        };
        assert_eq!(split(b"\xEF", b"\xBB\xBF[]").unwrap().unwrap(), "[]");
        assert!(split(b"\xEF", b"\xBB\x80[]").is_err());
    }
}

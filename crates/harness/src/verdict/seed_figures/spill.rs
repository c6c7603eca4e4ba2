//! The seeds a configuration does not hold in memory: written in sorted segments to a temporary
//! file of its own (unlinked as soon as it is made, so nothing is left behind however the
//! process ends, and gone with the configuration), each seed's figures a few dozen bytes, read
//! back in seed order.

use std::fs::File;
use std::io;
use std::sync::atomic::{AtomicUsize, Ordering};
use std::sync::{Arc, Mutex};

use super::SeedFigures;
use crate::billing::price::Price;

/// A configuration's temporary file; gone when the last segment written to it is.
#[derive(Debug)]
pub(super) struct SpillFile {
    file: File,
    /// Where the next bytes go (its length).
    end: Mutex<u64>,
}

impl SpillFile {
    /// A new one, in the temporary folder (`TMPDIR`), unlinked at once (on Windows, deleted
    /// when closed): the open file lives on, and no end of the process leaves it behind.
    fn create() -> io::Result<SpillFile> {
        static MADE: AtomicUsize = AtomicUsize::new(0);
        let mut options = File::options();
        options.read(true).write(true).create_new(true);
        #[cfg(windows)]
        std::os::windows::fs::OpenOptionsExt::custom_flags(&mut options, 0x0400_0000); // FILE_FLAG_DELETE_ON_CLOSE
        let mut tries = 0;
        loop {
            let n = MADE.fetch_add(1, Ordering::Relaxed);
            let path = std::env::temp_dir().join(format!("ctxbench-seeds-{}-{n}.tmp", std::process::id()));
            match options.open(&path) {
                Ok(file) => {
                    let _ = std::fs::remove_file(&path);
                    return Ok(SpillFile {
                        file,
                        end: Mutex::new(0),
                    });
                }
                // Left by an earlier process of the same number: the next name.
                Err(e) if e.kind() == io::ErrorKind::AlreadyExists && tries < 100 => tries += 1,
                Err(e) => return Err(e),
            }
        }
    }

    /// Writes `bytes` at the end: where they start. When `after` is given, only if the file
    /// ends there (a segment that ends the file grows in place); `None` when it does not.
    fn append(&self, bytes: &[u8], after: Option<u64>) -> io::Result<Option<u64>> {
        let mut end = self.end.lock().unwrap_or_else(|e| e.into_inner());
        if after.is_some_and(|a| a != *end) {
            return Ok(None);
        }
        let at = *end;
        write_at(&self.file, bytes, at)?;
        *end += bytes.len() as u64;
        Ok(Some(at))
    }
}

#[cfg(unix)]
fn write_at(file: &File, bytes: &[u8], at: u64) -> io::Result<()> {
    std::os::unix::fs::FileExt::write_all_at(file, bytes, at)
}

#[cfg(unix)]
fn read_at(file: &File, buf: &mut [u8], at: u64) -> io::Result<usize> {
    std::os::unix::fs::FileExt::read_at(file, buf, at)
}

#[cfg(windows)]
fn write_at(file: &File, mut bytes: &[u8], mut at: u64) -> io::Result<()> {
    while !bytes.is_empty() {
        let n = std::os::windows::fs::FileExt::seek_write(file, bytes, at)?;
        if n == 0 {
            return Err(io::ErrorKind::WriteZero.into());
        }
        (bytes, at) = (&bytes[n..], at + n as u64);
    }
    Ok(())
}

#[cfg(windows)]
fn read_at(file: &File, buf: &mut [u8], at: u64) -> io::Result<usize> {
    std::os::windows::fs::FileExt::seek_read(file, buf, at)
}

#[cfg(not(any(unix, windows)))]
fn write_at(_: &File, _: &[u8], _: u64) -> io::Result<()> {
    Err(io::ErrorKind::Unsupported.into())
}

#[cfg(not(any(unix, windows)))]
fn read_at(_: &File, _: &mut [u8], _: u64) -> io::Result<usize> {
    Err(io::ErrorKind::Unsupported.into())
}

/// Seeds written out, by seed: a run of bytes in the configuration's file.
#[derive(Clone, Debug)]
pub(super) struct Segment {
    file: Arc<SpillFile>,
    at: u64,
    bytes: u64,
    /// Seeds in it.
    count: usize,
    /// Its highest seed (each seed is written as its step from the one before).
    last: u64,
    /// The price every run in it is billed at, when repriced after it was written.
    price: Option<Arc<Price>>,
}

impl Segment {
    /// Writes `runs` (by seed, at least one) out after `last`, the configuration's last segment:
    /// grows `last` in place where it can (it ends the file, is billed as written and no seed of
    /// it comes after theirs) and gives `None`; else gives a new segment, in the same file (in a
    /// new one for the first).
    pub(super) fn write(last: Option<&mut Segment>, runs: &[SeedFigures]) -> io::Result<Option<Segment>> {
        let grow_file = last.as_ref().map(|s| s.file.clone());
        let grow = last.filter(|s| s.price.is_none() && runs.first().is_some_and(|r| r.seed >= s.last));
        // Each seed as its step from the one before, the first from `from`.
        let encoded = |from: u64| {
            let mut bytes = Vec::with_capacity(runs.len() * 64);
            let mut last = from;
            for r in runs {
                encode(r, last, &mut bytes);
                last = r.seed;
            }
            (bytes, last)
        };
        if let Some(s) = grow {
            let (bytes, last) = encoded(s.last);
            if s.file.append(&bytes, Some(s.at + s.bytes))?.is_some() {
                s.bytes += bytes.len() as u64;
                s.count += runs.len();
                s.last = last;
                return Ok(None);
            }
            // A copy of the configuration wrote after it: a segment of their own.
        }
        let (bytes, last) = encoded(0);
        let file = match &grow_file {
            Some(file) => file.clone(),
            None => Arc::new(SpillFile::create()?),
        };
        let at = file.append(&bytes, None)?.unwrap_or_default();
        Ok(Some(Segment {
            file,
            at,
            bytes: bytes.len() as u64,
            count: runs.len(),
            last,
            price: None,
        }))
    }

    /// Every run in it billed at `price` (already for its cache).
    pub(super) fn reprice(&mut self, price: Arc<Price>) {
        self.price = Some(price);
    }

    /// Seeds in it.
    pub(super) fn count(&self) -> usize {
        self.count
    }

    /// The bytes it takes.
    #[cfg(test)]
    pub(super) fn bytes(&self) -> u64 {
        self.bytes
    }

    /// Its runs, by seed.
    pub(super) fn read(&self) -> Reader<'_> {
        Reader {
            segment: self,
            buf: Vec::new(),
            used: 0,
            read: 0,
            left: self.count,
            last: 0,
        }
    }
}

/// A segment read back a chunk at a time.
pub(super) struct Reader<'s> {
    segment: &'s Segment,
    buf: Vec<u8>,
    /// Bytes of `buf` decoded.
    used: usize,
    /// Bytes of the segment read into `buf` so far.
    read: u64,
    /// Seeds not yet decoded.
    left: usize,
    last: u64,
}

/// Bytes read at a time.
const CHUNK: usize = 16 * 1024;

/// The most bytes one seed's figures take.
const MOST: usize = 1 + 16 * 10 + 3 * 8;

impl Iterator for Reader<'_> {
    type Item = SeedFigures;

    fn next(&mut self) -> Option<SeedFigures> {
        if self.left == 0 {
            return None;
        }
        let unread = self.segment.bytes - self.read;
        if self.buf.len() - self.used < MOST && unread > 0 {
            self.buf.drain(..self.used);
            self.used = 0;
            let have = self.buf.len();
            let more = unread.min(CHUNK as u64) as usize;
            self.buf.resize(have + more, 0);
            let at = self.segment.at + self.read;
            read_exact_at(&self.segment.file.file, &mut self.buf[have..], at).unwrap_or_else(|e| {
                // Bytes this process wrote a moment ago and holds open: only a failing disk
                // loses them, and no figure can be given without them.
                panic!(
                    "the seeds' figures kept in a temporary file (TMPDIR) could not be read back: {e}; \
                     run fewer seeds, or set TMPDIR to a sound disk"
                )
            });
            self.read += more as u64;
        }
        let mut rest = &self.buf[self.used..];
        let before = rest.len();
        let mut r = decode(&mut rest, self.last);
        self.used += before - rest.len();
        self.left -= 1;
        self.last = r.seed;
        if let Some(price) = &self.segment.price {
            r.reprice(price);
        }
        Some(r)
    }
}

fn read_exact_at(file: &File, mut buf: &mut [u8], mut at: u64) -> io::Result<()> {
    while !buf.is_empty() {
        match read_at(file, buf, at) {
            Ok(0) => return Err(io::ErrorKind::UnexpectedEof.into()),
            Ok(n) => (buf, at) = (&mut buf[n..], at + n as u64),
            Err(e) if e.kind() == io::ErrorKind::Interrupted => {}
            Err(e) => return Err(e),
        }
    }
    Ok(())
}

/// `r` as bytes: its seed as the step from `last`, whole numbers in 7-bit groups (most are
/// small), the two fractions and the digest whole.
fn encode(r: &SeedFigures, last: u64, out: &mut Vec<u8>) {
    out.push(u8::from(r.out) | u8::from(r.cost_usd.is_some()) << 1);
    let whole = [
        r.seed - last,
        r.model_calls as u64,
        r.tokens_sent,
        r.tokens_received,
        r.uncached_tokens,
        r.cache_read_tokens,
        r.cache_write_tokens,
        r.prefix_breaks as u64,
        r.invalidated_tokens,
        r.cache_write_unread_tokens,
        r.peak_request_tokens,
        r.compactions as u64,
        r.missed as u64,
        r.needs_unmet as u64,
        r.refetches as u64,
        r.thrash as u64,
    ];
    for mut n in whole {
        while n >= 0x80 {
            out.push(n as u8 | 0x80);
            n >>= 7;
        }
        out.push(n as u8);
    }
    out.extend_from_slice(&r.cache_hit_rate.to_le_bytes());
    out.extend_from_slice(&r.cost_usd.unwrap_or_default().to_le_bytes());
    out.extend_from_slice(&r.digest.to_le_bytes());
}

/// The figures [`encode`] wrote at the start of `bytes`, which it moves past.
fn decode(bytes: &mut &[u8], last: u64) -> SeedFigures {
    let (&flags, rest) = bytes.split_first().unwrap_or((&0, &[]));
    *bytes = rest;
    let mut whole = || {
        let (mut n, mut shift) = (0u64, 0);
        while let Some((&b, rest)) = bytes.split_first() {
            *bytes = rest;
            n |= u64::from(b & 0x7f) << shift;
            shift += 7;
            if b < 0x80 {
                break;
            }
        }
        n
    };
    let seed = last + whole();
    let model_calls = whole() as usize;
    let (tokens_sent, tokens_received, uncached_tokens) = (whole(), whole(), whole());
    let (cache_read_tokens, cache_write_tokens) = (whole(), whole());
    let prefix_breaks = whole() as usize;
    let (invalidated_tokens, cache_write_unread_tokens, peak_request_tokens) = (whole(), whole(), whole());
    let (compactions, missed, needs_unmet) = (whole() as usize, whole() as usize, whole() as usize);
    let (refetches, thrash) = (whole() as usize, whole() as usize);
    let mut eight = || {
        let (head, rest) = bytes.split_at(8.min(bytes.len()));
        *bytes = rest;
        let mut b = [0; 8];
        b[..head.len()].copy_from_slice(head);
        b
    };
    let cache_hit_rate = f64::from_le_bytes(eight());
    let cost = f64::from_le_bytes(eight());
    let digest = u64::from_le_bytes(eight());
    SeedFigures {
        seed,
        model_calls,
        tokens_sent,
        tokens_received,
        uncached_tokens,
        cache_read_tokens,
        cache_write_tokens,
        cache_hit_rate,
        prefix_breaks,
        invalidated_tokens,
        cache_write_unread_tokens,
        cost_usd: (flags & 2 != 0).then_some(cost),
        peak_request_tokens,
        compactions,
        missed,
        needs_unmet,
        refetches,
        thrash,
        out: flags & 1 != 0,
        digest,
    }
}

//! Temporary files of spilled sorts: created private (0600) in the spill directory and
//! unlinked at once, so that nothing is left behind whatever ends the statement (an
//! error, a KILL, a crash): the file lives as long as its descriptor.
//!
//! A file holds one sorted run, a sequence of records (see [`super::codec`]); it is
//! written front to back, then read front to back once.

use super::codec::{Corrupt, SpillRow};
use crate::error::SqlError;
use std::fs::{File, OpenOptions};
use std::io::{BufReader, BufWriter, Read, Seek, SeekFrom, Write};
use std::os::unix::fs::OpenOptionsExt;
use std::path::Path;
use std::sync::atomic::{AtomicU64, Ordering};

/// Mode of a spill file: the server's user only (rows of any table may be in it).
const SPILL_FILE_MODE: u32 = 0o600;

/// Buffer of a run's writer and of each reader in a merge: a merge of [`super::sort`]'s
/// fan-in runs holds this many bytes per run, so it stays well under a default
/// sort_buffer_size while making each system call move a useful amount.
pub const IO_BUFFER_BYTES: usize = 32 * 1024;

/// Names of spill files differ within the process by this counter (with the process id,
/// across processes sharing a tmpdir).
static NEXT_FILE: AtomicU64 = AtomicU64::new(0);

/// The error of a failed spill-file operation: ER_DISK_FULL for a full file system (as
/// MariaDB reports a full tmpdir), else ER_GET_ERRNO with the errno and its text.
pub fn io_error(e: &std::io::Error, dir: &Path) -> SqlError {
    crate::catalog::io_error(e, &dir.display().to_string())
}

fn corrupt(dir: &Path) -> SqlError {
    SqlError::new(
        crate::error::ER_GET_ERRNO,
        format!(
            "Got error 5 \"Input/output error\" from storage engine (a sort file in {} \
             read back differently than written)",
            dir.display()
        ),
    )
}

/// A run being written.
pub struct RunWriter<'d> {
    dir: &'d Path,
    out: BufWriter<File>,
    record: Vec<u8>,
    rows: u64,
}

impl<'d> RunWriter<'d> {
    /// Create an anonymous private file in `dir`.
    pub fn create(dir: &'d Path) -> Result<RunWriter<'d>, SqlError> {
        let n = NEXT_FILE.fetch_add(1, Ordering::Relaxed);
        let path = dir.join(format!("#sort_{}_{n}", std::process::id()));
        let file = OpenOptions::new()
            .read(true)
            .write(true)
            .create_new(true)
            .mode(SPILL_FILE_MODE)
            .open(&path)
            .map_err(|e| io_error(&e, dir))?;
        // Unlinked at once: the descriptor is the file's only name from now on.
        std::fs::remove_file(&path).map_err(|e| io_error(&e, dir))?;
        Ok(RunWriter {
            dir,
            out: BufWriter::with_capacity(IO_BUFFER_BYTES, file),
            record: Vec::new(),
            rows: 0,
        })
    }

    pub fn push<R: SpillRow>(&mut self, row: &R) -> Result<(), SqlError> {
        let mut record = std::mem::take(&mut self.record);
        record.clear();
        row.encode(&mut record);
        let written = self.push_record(&record);
        self.record = record;
        written
    }

    /// Append one record as it is (read back by [`RunReader::read`] as a `Vec<u8>`).
    pub fn push_record(&mut self, record: &[u8]) -> Result<(), SqlError> {
        #[cfg(test)]
        if let Some(errno) = tests::FAIL_WRITES.with(|f| f.get()) {
            return Err(io_error(
                &std::io::Error::from_raw_os_error(errno),
                self.dir,
            ));
        }
        let len = u32::try_from(record.len()).map_err(|_| {
            SqlError::new(
                crate::error::ER_GET_ERRNO,
                "Got error 27 \"File too large\" from storage engine (a sorted row over 4 GB)",
            )
        })?;
        self.out
            .write_all(&len.to_le_bytes())
            .and_then(|()| self.out.write_all(record))
            .map_err(|e| io_error(&e, self.dir))?;
        self.rows += 1;
        Ok(())
    }

    /// Flush the run and turn it into a reader from its first record.
    pub fn finish(self) -> Result<RunReader<'d>, SqlError> {
        let dir = self.dir;
        let mut file = self
            .out
            .into_inner()
            .map_err(|e| io_error(e.error(), dir))?;
        file.seek(SeekFrom::Start(0))
            .map_err(|e| io_error(&e, dir))?;
        Ok(RunReader {
            dir,
            file: Some(file),
            input: None,
            record: Vec::new(),
            left: self.rows,
        })
    }
}

/// A run being read back.
pub struct RunReader<'d> {
    dir: &'d Path,
    /// The file until its first read; its read buffer is allocated then, so that the
    /// runs waiting for a merge hold a descriptor each and no memory.
    file: Option<File>,
    input: Option<BufReader<File>>,
    record: Vec<u8>,
    /// Records not yet read: the run's end is known, not guessed from a short read.
    left: u64,
}

impl RunReader<'_> {
    pub fn read<R: SpillRow>(&mut self) -> Result<Option<R>, SqlError> {
        if self.left == 0 {
            return Ok(None);
        }
        if let Some(file) = self.file.take() {
            self.input = Some(BufReader::with_capacity(IO_BUFFER_BYTES, file));
        }
        let Some(input) = self.input.as_mut() else {
            return Err(corrupt(self.dir));
        };
        let mut len = [0u8; 4];
        input
            .read_exact(&mut len)
            .map_err(|e| io_error(&e, self.dir))?;
        self.record.resize(u32::from_le_bytes(len) as usize, 0);
        input
            .read_exact(&mut self.record)
            .map_err(|e| io_error(&e, self.dir))?;
        let mut buf = &self.record[..];
        let row =
            R::decode(&mut buf).and_then(|r| if buf.is_empty() { Ok(r) } else { Err(Corrupt) });
        self.left -= 1;
        if self.left == 0 {
            // Read whole: the buffer and the descriptor go now, not at the merge's end.
            self.input = None;
        }
        row.map(Some).map_err(|Corrupt| corrupt(self.dir))
    }

    /// Rows not yet read.
    pub fn left(&self) -> u64 {
        self.left
    }
}

#[cfg(test)]
pub(crate) mod tests {
    use super::*;
    use crate::value::Value;

    thread_local! {
        /// Writes of spill records on this thread fail with this errno (a full disk).
        pub(crate) static FAIL_WRITES: std::cell::Cell<Option<i32>> = const { std::cell::Cell::new(None) };
    }

    #[test]
    fn a_run_reads_back_and_leaves_no_file() {
        let dir = tempfile::tempdir().expect("tempdir");
        let mut w = RunWriter::create(dir.path()).expect("create");
        assert_eq!(
            std::fs::read_dir(dir.path()).expect("list").count(),
            0,
            "the file is unlinked at creation"
        );
        let rows: Vec<(u64, Vec<Value>)> = (0..1000u64)
            .map(|n| {
                (
                    n,
                    vec![
                        Value::UInt(n),
                        Value::Bytes(vec![n as u8; (n % 50) as usize]),
                    ],
                )
            })
            .collect();
        for r in &rows {
            w.push(r).expect("push");
        }
        let mut r = w.finish().expect("finish");
        let mut back = Vec::new();
        while let Some(row) = r.read::<(u64, Vec<Value>)>().expect("read") {
            back.push(row);
        }
        assert_eq!(back, rows);
        assert_eq!(r.left(), 0);
    }

    #[test]
    fn a_missing_directory_is_an_errno_error() {
        let dir = tempfile::tempdir().expect("tempdir");
        let gone = dir.path().join("missing");
        let e = RunWriter::create(&gone)
            .err()
            .expect("no directory, no file");
        assert_eq!(e.code, crate::error::ER_GET_ERRNO.code);
        assert!(e.message.contains("Got error 2"), "{}", e.message);
    }

    #[test]
    fn a_full_file_system_is_disk_full() {
        let e = io_error(&std::io::Error::from_raw_os_error(28), Path::new("/t"));
        assert_eq!(e.code, crate::error::ER_DISK_FULL.code);
        assert!(e.message.starts_with("Disk full (/t)"), "{}", e.message);
    }
}

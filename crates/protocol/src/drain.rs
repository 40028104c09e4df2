//! Writing a result set to the client while the statement still produces it.
//!
//! A statement runs synchronously inside its connection's task (the server hands the
//! network worker off with `block_in_place` when it waits or runs long), and writes its
//! rows into the connection's [`FrameBuffer`] through a [`crate::ResultSink`]. Without a
//! bound that buffer held the whole encoded result until the command ended: twenty
//! clients reading a large result slowly held twenty results. With a [`Drain`], the sink
//! writes the buffer to the socket once it holds more than [`FLUSH_BYTES`], and the
//! statement's thread waits until the client has taken those bytes: a slow reader slows
//! its own statement down, not the server's memory up.
//!
//! Why the statement's thread writes, rather than handing rows over a bounded channel to
//! the connection's task: the connection's task *is* the thread running the statement
//! (the handler is called from it), so there is no other task to drain a channel; the
//! socket's half is owned by the connection and borrowed for the command; and a blocking
//! write is itself the back-pressure, with no copy of the bytes between threads. The
//! write is a `Handle::block_on` inside `block_in_place`, taken only when the buffer is
//! over the bound: a point select never gets there and pays nothing.
//!
//! A statement that can stop between rows need not wait on its thread at all:
//! [`Drain::try_drain`] writes what the socket takes now, and when the client left some
//! unread, [`crate::ResultSink::flush_or_pause`] tells the handler to pause the statement.
//! The connection's task then waits for the client like any other await (no thread held),
//! in slices with the same stop probe and net_write_timeout, and asks the handler to
//! resume ([`crate::SessionHandler::resume`]).
//!
//! The wait is sliced ([`STOP_POLL`]): between slices the drain asks the statement's stop
//! probe (KILL, max_statement_time, the client hanging up) and checks net_write_timeout
//! (no progress for that long). Bytes written are removed from the buffer as they go, so
//! after a stop the rest of the buffer (whole packets and a part of one) is still sent
//! first and an ERR packet can follow it: the client's packet stream stays whole.

use crate::packet::FrameBuffer;
use std::time::Duration;
use tokio::io::{AsyncWrite, AsyncWriteExt};

/// Bytes a result may hold in the connection's buffer before they are written out and the
/// statement waits for the client to take them: MariaDB's net_buffer_length default, the
/// point where it writes its net buffer. Each statement waiting on a slow reader holds
/// about this much (plus one row), 20 of them about 0.6 MiB of buffers.
pub const FLUSH_BYTES: usize = 16 * 1024;

/// How long one slice of a blocked write waits before the stop probe is asked again: a
/// KILL of a statement waiting on a slow reader takes effect within this.
pub const STOP_POLL: Duration = Duration::from_millis(100);

/// Capacity above which the buffer is given back after a drain (a row of a large BLOB may
/// have grown it): the same bound the command loop's flush applies.
const KEPT_CAPACITY_BYTES: usize = 4 * 1024 * 1024;

/// Why a drain did not write the whole buffer.
#[derive(Debug)]
pub enum DrainError {
    /// The stop probe asked the statement to end (KILL, a timeout, the client left).
    Stopped,
    /// No byte could be written for net_write_timeout.
    TimedOut,
    /// The socket failed (the client is gone).
    Io(std::io::Error),
}

/// Writes a connection's buffered packets to its socket from the statement's thread.
pub trait Drain {
    /// Write `frames` out, waiting for the client; between waits ask `stop`.
    fn drain(
        &mut self,
        frames: &mut FrameBuffer,
        stop: &dyn Fn() -> bool,
    ) -> Result<(), DrainError>;

    /// Write what the socket takes now, without waiting: true when all of `frames` went
    /// out, false when the client has not made room for the rest (the statement may then
    /// pause, see [`crate::SessionHandler::resume`]).
    fn try_drain(&mut self, frames: &mut FrameBuffer) -> Result<bool, DrainError>;
}

/// The [`Drain`] over one connection's write half.
pub(crate) struct StreamDrain<'a, W> {
    pub stream: &'a mut W,
    pub bytes_sent: &'a mut u64,
    pub write_timeout: Duration,
}

impl<W: AsyncWrite + Unpin + Send> Drain for StreamDrain<'_, W> {
    fn drain(
        &mut self,
        frames: &mut FrameBuffer,
        stop: &dyn Fn() -> bool,
    ) -> Result<(), DrainError> {
        let handle = match tokio::runtime::Handle::try_current() {
            Ok(h) if h.runtime_flavor() == tokio::runtime::RuntimeFlavor::MultiThread => h,
            // No thread may block here (a single-threaded runtime): keep buffering, as
            // the command loop's flush will write everything at the end.
            _ => return Ok(()),
        };
        let mut slices = Slices::new(self.write_timeout);
        loop {
            let stream = &mut *self.stream;
            let bytes = frames.unwritten();
            let (written, outcome) = tokio::task::block_in_place(|| {
                handle.block_on(write_for(stream, bytes, STOP_POLL))
            });
            if let Some(end) = slices.after(frames, self.bytes_sent, written, outcome, stop) {
                return end;
            }
        }
    }

    fn try_drain(&mut self, frames: &mut FrameBuffer) -> Result<bool, DrainError> {
        let mut cx = std::task::Context::from_waker(std::task::Waker::noop());
        loop {
            let bytes = frames.unwritten();
            if bytes.is_empty() {
                frames.shrink_to(KEPT_CAPACITY_BYTES);
                return Ok(true);
            }
            match std::pin::Pin::new(&mut *self.stream).poll_write(&mut cx, bytes) {
                std::task::Poll::Pending => return Ok(false),
                std::task::Poll::Ready(Ok(0)) => {
                    let e = std::io::Error::new(std::io::ErrorKind::WriteZero, "socket closed");
                    return Err(DrainError::Io(e));
                }
                std::task::Poll::Ready(Ok(n)) => {
                    frames.consume(n);
                    *self.bytes_sent += n as u64;
                }
                std::task::Poll::Ready(Err(e)) => return Err(DrainError::Io(e)),
            }
        }
    }
}

/// The bookkeeping of a write made in slices of [`STOP_POLL`]: the bytes each slice
/// wrote leave the buffer, and the write ends once all are written, the stop probe says
/// so, or no byte went out for net_write_timeout.
pub(crate) struct Slices {
    idle: Duration,
    write_timeout: Duration,
}

impl Slices {
    pub(crate) fn new(write_timeout: Duration) -> Slices {
        Slices {
            idle: Duration::ZERO,
            write_timeout,
        }
    }

    /// After a slice that wrote `written` bytes of `frames` with `outcome` (see
    /// [`write_for`]): how the write ends, or None to write another slice.
    pub(crate) fn after(
        &mut self,
        frames: &mut FrameBuffer,
        bytes_sent: &mut u64,
        written: usize,
        outcome: std::io::Result<bool>,
        stop: &dyn Fn() -> bool,
    ) -> Option<Result<(), DrainError>> {
        frames.consume(written);
        *bytes_sent += written as u64;
        match outcome {
            Ok(true) => {
                frames.shrink_to(KEPT_CAPACITY_BYTES);
                return Some(Ok(()));
            }
            Ok(false) => {}
            Err(e) => return Some(Err(DrainError::Io(e))),
        }
        self.idle = if written > 0 {
            Duration::ZERO
        } else {
            self.idle + STOP_POLL
        };
        if stop() {
            return Some(Err(DrainError::Stopped));
        }
        if self.idle >= self.write_timeout {
            return Some(Err(DrainError::TimedOut));
        }
        None
    }
}

/// Write as much of `bytes` as the socket takes within `slice`: the count written, and
/// whether that was all of it (flushed).
pub(crate) async fn write_for<W: AsyncWrite + Unpin>(
    stream: &mut W,
    bytes: &[u8],
    slice: Duration,
) -> (usize, std::io::Result<bool>) {
    let deadline = tokio::time::Instant::now() + slice;
    let mut written = 0;
    while written < bytes.len() {
        // A write cancelled by the deadline wrote nothing: the count stays exact.
        match tokio::time::timeout_at(deadline, stream.write(&bytes[written..])).await {
            Err(_) => return (written, Ok(false)),
            Ok(Ok(0)) => {
                let e = std::io::Error::new(std::io::ErrorKind::WriteZero, "socket closed");
                return (written, Err(e));
            }
            Ok(Ok(n)) => written += n,
            Ok(Err(e)) => return (written, Err(e)),
        }
    }
    match tokio::time::timeout_at(deadline, stream.flush()).await {
        Err(_) => (written, Ok(false)),
        Ok(result) => (written, result.map(|()| true)),
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use tokio::io::AsyncReadExt;

    fn framed(len: usize) -> FrameBuffer {
        let mut frames = FrameBuffer::default();
        frames.packet(&vec![7u8; len]);
        frames
    }

    #[tokio::test(flavor = "multi_thread", worker_threads = 2)]
    async fn a_drain_waits_for_the_reader_and_writes_everything_in_order() {
        let (mut client, mut server) = tokio::io::duplex(4096);
        let reader = tokio::spawn(async move {
            let mut got = Vec::new();
            let mut chunk = [0u8; 1000];
            loop {
                // A slow reader: the writer must wait for it, not fail.
                tokio::time::sleep(Duration::from_millis(1)).await;
                let n = client.read(&mut chunk).await.unwrap();
                if n == 0 {
                    return got;
                }
                got.extend_from_slice(&chunk[..n]);
            }
        });
        let mut frames = framed(100_000);
        let expected = frames.unwritten().to_vec();
        let mut sent = 0;
        let mut drain = StreamDrain {
            stream: &mut server,
            bytes_sent: &mut sent,
            write_timeout: Duration::from_secs(10),
        };
        drain.drain(&mut frames, &|| false).unwrap();
        assert!(
            frames.is_empty(),
            "a finished drain leaves nothing buffered"
        );
        assert_eq!(sent, expected.len() as u64);
        drop(server);
        assert_eq!(reader.await.unwrap(), expected);
    }

    #[tokio::test(flavor = "multi_thread", worker_threads = 2)]
    async fn a_stop_ends_a_blocked_drain_and_keeps_the_unwritten_bytes() {
        // Nobody reads: the writer blocks once the pipe's 4 KiB are full.
        let (_client, mut server) = tokio::io::duplex(4096);
        let mut frames = framed(100_000);
        let total = frames.len();
        let mut sent = 0;
        let mut drain = StreamDrain {
            stream: &mut server,
            bytes_sent: &mut sent,
            write_timeout: Duration::from_secs(10),
        };
        let started = std::time::Instant::now();
        let result = drain.drain(&mut frames, &|| true);
        assert!(matches!(result, Err(DrainError::Stopped)), "{result:?}");
        assert!(started.elapsed() < Duration::from_secs(2));
        assert_eq!(sent, 4096);
        assert_eq!(
            frames.len() + sent as usize,
            total,
            "written bytes left the buffer, the rest stayed"
        );
    }

    #[tokio::test(flavor = "multi_thread", worker_threads = 2)]
    async fn a_reader_that_takes_nothing_times_the_drain_out() {
        let (_client, mut server) = tokio::io::duplex(1024);
        let mut frames = framed(10_000);
        let mut sent = 0;
        let mut drain = StreamDrain {
            stream: &mut server,
            bytes_sent: &mut sent,
            write_timeout: Duration::from_millis(300),
        };
        let result = drain.drain(&mut frames, &|| false);
        assert!(matches!(result, Err(DrainError::TimedOut)), "{result:?}");
    }
}

//! Packet framing: a 4-byte header (3-byte little-endian payload length, 1-byte sequence
//! id) before each payload.
//!
//! A logical payload of 0xFFFFFF bytes or more travels as several physical packets: full
//! 0xFFFFFF-byte pieces, then a shorter final piece (empty when the length is an exact
//! multiple). [`PacketReader::read_payload`] joins them, refusing anything larger than
//! `max_allowed_packet` before it allocates; `PacketWriter::finish_packet` splits them.
//!
//! Sequence ids start at 0 with each command and increase by one per physical packet in
//! either direction, wrapping at 256. The reader checks them; the writer continues from
//! the last id read, so a response always follows its request's numbering.
//!
//! Responses are built in one output buffer and written with one `write_all` per command
//! (or per batch of rows), which keeps small queries to one syscall each way.

use crate::constants::MAX_PACKET_CHUNK;
use std::fmt;
use tokio::io::{AsyncRead, AsyncReadExt, AsyncWrite, AsyncWriteExt};

/// Why a packet could not be read.
#[derive(Debug)]
pub enum PacketError {
    /// The peer closed the connection between packets.
    Closed,
    Io(std::io::Error),
    /// A sequence id other than the expected one.
    OutOfOrder {
        expected: u8,
        got: u8,
    },
    /// The joined payload would exceed max_allowed_packet.
    TooLarge {
        limit_bytes: usize,
    },
}

impl fmt::Display for PacketError {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        match self {
            PacketError::Closed => write!(f, "connection closed"),
            PacketError::Io(e) => write!(f, "i/o error: {e}"),
            PacketError::OutOfOrder { expected, got } => {
                write!(
                    f,
                    "packet out of order: expected sequence id {expected}, got {got}"
                )
            }
            PacketError::TooLarge { limit_bytes } => {
                write!(
                    f,
                    "packet larger than max_allowed_packet ({limit_bytes} bytes)"
                )
            }
        }
    }
}

impl std::error::Error for PacketError {}

/// Reads logical payloads from a stream.
pub struct PacketReader<R> {
    stream: R,
    /// The sequence id the next physical packet must carry.
    pub(crate) next_sequence: u8,
    pub max_allowed_packet: usize,
    pub bytes_received: u64,
}

impl<R: AsyncRead + Unpin> PacketReader<R> {
    pub fn new(stream: R, max_allowed_packet: usize) -> PacketReader<R> {
        PacketReader {
            stream,
            next_sequence: 0,
            max_allowed_packet,
            bytes_received: 0,
        }
    }

    /// Start a new command: the client numbers its first packet 0.
    pub fn reset_sequence(&mut self) {
        self.next_sequence = 0;
    }

    /// Read one logical payload into `payload` (cleared first), joining split packets.
    pub async fn read_payload(&mut self, payload: &mut Vec<u8>) -> Result<(), PacketError> {
        payload.clear();
        let mut first = true;
        loop {
            let mut header = [0u8; 4];
            if let Err(e) = self.stream.read_exact(&mut header).await {
                return Err(if first && e.kind() == std::io::ErrorKind::UnexpectedEof {
                    PacketError::Closed
                } else {
                    PacketError::Io(e)
                });
            }
            first = false;
            let len = u32::from_le_bytes([header[0], header[1], header[2], 0]) as usize;
            let sequence = header[3];
            if sequence != self.next_sequence {
                return Err(PacketError::OutOfOrder {
                    expected: self.next_sequence,
                    got: sequence,
                });
            }
            self.next_sequence = sequence.wrapping_add(1);
            if payload.len() + len > self.max_allowed_packet {
                return Err(PacketError::TooLarge {
                    limit_bytes: self.max_allowed_packet,
                });
            }
            let start = payload.len();
            payload.resize(start + len, 0);
            self.stream
                .read_exact(&mut payload[start..])
                .await
                .map_err(PacketError::Io)?;
            self.bytes_received += 4 + len as u64;
            if len < MAX_PACKET_CHUNK {
                return Ok(());
            }
        }
    }
}

/// Payloads framed into physical packets, waiting to be written.
pub struct FrameBuffer {
    buffer: Vec<u8>,
    next_sequence: u8,
}

/// Where a packet under construction starts in the output buffer.
#[derive(Debug, Clone, Copy)]
pub struct PacketStart(usize);

/// The output buffer's capacity: the bound past which a result is written out
/// ([`crate::drain::FLUSH_BYTES`]) plus room for the row that crosses it, so that a result of
/// rows up to 4 KiB streams through one allocation. Sized at the bound alone, the crossing
/// row made the buffer grow to twice the bound (32 KiB touched per slow reader, where
/// 17 KiB are in use).
pub(crate) const BUFFER_BYTES: usize = crate::drain::FLUSH_BYTES + 4 * 1024;

impl Default for FrameBuffer {
    fn default() -> Self {
        FrameBuffer {
            buffer: Vec::with_capacity(BUFFER_BYTES),
            next_sequence: 0,
        }
    }
}

impl FrameBuffer {
    pub fn set_sequence(&mut self, next: u8) {
        self.next_sequence = next;
    }

    pub fn sequence(&self) -> u8 {
        self.next_sequence
    }

    /// Bytes framed but not yet written.
    pub fn len(&self) -> usize {
        self.buffer.len()
    }

    pub fn is_empty(&self) -> bool {
        self.buffer.is_empty()
    }

    /// Reserve a header; append the payload to [`FrameBuffer::payload`], then call
    /// [`FrameBuffer::finish_packet`].
    pub fn start_packet(&mut self) -> PacketStart {
        let start = self.buffer.len();
        self.buffer.extend_from_slice(&[0, 0, 0, 0]);
        PacketStart(start)
    }

    /// The output buffer, to append payload bytes to.
    pub fn payload(&mut self) -> &mut Vec<u8> {
        &mut self.buffer
    }

    /// Fill in the header (or headers, splitting a payload of 0xFFFFFF bytes or more).
    pub fn finish_packet(&mut self, start: PacketStart) {
        let body_start = start.0 + 4;
        let len = self.buffer.len() - body_start;
        if len < MAX_PACKET_CHUNK {
            self.write_header(start.0, len);
            return;
        }
        // Rare: a payload that needs several physical packets. Rebuild the tail with a
        // header before every piece.
        let body = self.buffer.split_off(body_start);
        self.buffer.truncate(start.0);
        let mut pieces = body.chunks(MAX_PACKET_CHUNK).peekable();
        while let Some(piece) = pieces.next() {
            let at = self.buffer.len();
            self.buffer.extend_from_slice(&[0, 0, 0, 0]);
            self.buffer.extend_from_slice(piece);
            self.write_header(at, piece.len());
            if pieces.peek().is_none() && piece.len() == MAX_PACKET_CHUNK {
                let at = self.buffer.len();
                self.buffer.extend_from_slice(&[0, 0, 0, 0]);
                self.write_header(at, 0);
            }
        }
    }

    fn write_header(&mut self, at: usize, len: usize) {
        let len_bytes = (len as u32).to_le_bytes();
        self.buffer[at..at + 3].copy_from_slice(&len_bytes[..3]);
        self.buffer[at + 3] = self.next_sequence;
        self.next_sequence = self.next_sequence.wrapping_add(1);
    }

    /// The payload of the one packet framed since `at` (an earlier [`FrameBuffer::len`]),
    /// or None when it was split into several.
    pub fn payload_since(&self, at: usize) -> Option<&[u8]> {
        let body = self.buffer.get(at + 4..)?;
        (body.len() < MAX_PACKET_CHUNK).then_some(body)
    }

    /// The framed bytes not yet written.
    pub(crate) fn unwritten(&self) -> &[u8] {
        &self.buffer
    }

    /// Forget the first `written` bytes, which reached the socket.
    pub(crate) fn consume(&mut self, written: usize) {
        self.buffer.drain(..written.min(self.buffer.len()));
    }

    /// Give back the buffer's memory when it is empty and holds more than `capacity`.
    pub(crate) fn shrink_to(&mut self, capacity: usize) {
        if self.buffer.is_empty() && self.buffer.capacity() > capacity {
            self.buffer = Vec::with_capacity(BUFFER_BYTES);
        }
    }

    /// Frame a complete payload.
    pub fn packet(&mut self, payload: &[u8]) {
        let start = self.start_packet();
        self.buffer.extend_from_slice(payload);
        self.finish_packet(start);
    }
}

/// Writes framed packets to a stream.
pub struct PacketWriter<W> {
    stream: W,
    pub frames: FrameBuffer,
    pub bytes_sent: u64,
}

impl<W: AsyncWrite + Unpin> PacketWriter<W> {
    pub fn new(stream: W) -> PacketWriter<W> {
        PacketWriter {
            stream,
            frames: FrameBuffer::default(),
            bytes_sent: 0,
        }
    }

    /// Write everything framed so far.
    pub async fn flush(&mut self) -> std::io::Result<()> {
        if self.frames.buffer.is_empty() {
            return Ok(());
        }
        self.stream.write_all(&self.frames.buffer).await?;
        self.stream.flush().await?;
        self.bytes_sent += self.frames.buffer.len() as u64;
        self.frames.buffer.clear();
        // A huge result should not pin its buffer for the rest of the connection.
        if self.frames.buffer.capacity() > 4 * 1024 * 1024 {
            self.frames.buffer = Vec::with_capacity(BUFFER_BYTES);
        }
        Ok(())
    }

    /// The buffer, and a [`crate::drain::Drain`] that writes it from a statement's thread.
    pub(crate) fn split_drain(
        &mut self,
        write_timeout: std::time::Duration,
    ) -> (&mut FrameBuffer, crate::drain::StreamDrain<'_, W>) {
        let drain = crate::drain::StreamDrain {
            stream: &mut self.stream,
            bytes_sent: &mut self.bytes_sent,
            write_timeout,
        };
        (&mut self.frames, drain)
    }

    /// The stream itself, for tests that write unframed bytes.
    pub fn stream_mut(&mut self) -> &mut W {
        &mut self.stream
    }

    pub async fn shutdown(&mut self) {
        let _ = self.stream.shutdown().await;
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use proptest::prelude::*;

    fn frame_all(payloads: &[Vec<u8>]) -> Vec<u8> {
        let rt = tokio::runtime::Builder::new_current_thread()
            .build()
            .unwrap();
        rt.block_on(async {
            let mut out = Vec::new();
            let mut writer = PacketWriter::new(&mut out);
            for p in payloads {
                writer.frames.packet(p);
            }
            writer.flush().await.unwrap();
            out
        })
    }

    #[test]
    fn large_payloads_split_and_join() {
        for len in [
            0,
            1,
            MAX_PACKET_CHUNK - 1,
            MAX_PACKET_CHUNK,
            MAX_PACKET_CHUNK + 5,
            2 * MAX_PACKET_CHUNK,
        ] {
            let payload: Vec<u8> = (0..len).map(|i| (i % 251) as u8).collect();
            let framed = frame_all(std::slice::from_ref(&payload));
            let physical = len / MAX_PACKET_CHUNK + 1;
            assert_eq!(
                framed.len(),
                len + 4 * physical,
                "len {len}: one header per physical packet"
            );
            let rt = tokio::runtime::Builder::new_current_thread()
                .build()
                .unwrap();
            let joined = rt.block_on(async {
                let mut reader = PacketReader::new(&framed[..], 64 * 1024 * 1024);
                let mut got = Vec::new();
                reader.read_payload(&mut got).await.unwrap();
                assert_eq!(reader.next_sequence as usize, physical % 256);
                got
            });
            assert!(joined == payload, "len {len}: joined payload differs");
        }
    }

    #[test]
    fn oversized_and_out_of_order_packets_are_refused() {
        let framed = frame_all(&[vec![7u8; 100]]);
        let rt = tokio::runtime::Builder::new_current_thread()
            .build()
            .unwrap();
        rt.block_on(async {
            let mut reader = PacketReader::new(&framed[..], 99);
            let mut got = Vec::new();
            assert!(matches!(
                reader.read_payload(&mut got).await,
                Err(PacketError::TooLarge { .. })
            ));

            let mut bad = framed.clone();
            bad[3] = 5;
            let mut reader = PacketReader::new(&bad[..], 1000);
            assert!(matches!(
                reader.read_payload(&mut got).await,
                Err(PacketError::OutOfOrder {
                    expected: 0,
                    got: 5
                })
            ));

            let mut reader = PacketReader::new(&framed[..10], 1000);
            assert!(matches!(
                reader.read_payload(&mut got).await,
                Err(PacketError::Io(_))
            ));
            let mut reader = PacketReader::new(&[][..], 1000);
            assert!(matches!(
                reader.read_payload(&mut got).await,
                Err(PacketError::Closed)
            ));
        });
    }

    proptest! {
        /// The reference model: framing then reading returns the payloads in order.
        #[test]
        fn framing_round_trips(payloads in proptest::collection::vec(proptest::collection::vec(any::<u8>(), 0..2000), 1..20)) {
            let framed = frame_all(&payloads);
            let rt = tokio::runtime::Builder::new_current_thread().build().unwrap();
            let got = rt.block_on(async {
                let mut reader = PacketReader::new(&framed[..], 1 << 20);
                let mut all = Vec::new();
                for _ in 0..payloads.len() {
                    let mut p = Vec::new();
                    reader.read_payload(&mut p).await.unwrap();
                    all.push(p);
                }
                all
            });
            prop_assert_eq!(got, payloads);
        }

        #[test]
        fn random_bytes_never_panic(bytes in proptest::collection::vec(any::<u8>(), 0..200), limit in 0usize..300) {
            let rt = tokio::runtime::Builder::new_current_thread().build().unwrap();
            rt.block_on(async {
                let mut reader = PacketReader::new(&bytes[..], limit);
                let mut p = Vec::new();
                while reader.read_payload(&mut p).await.is_ok() {}
            });
        }
    }
}

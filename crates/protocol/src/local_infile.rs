//! LOAD DATA LOCAL INFILE: the server asks the client for a file in the middle of a
//! COM_QUERY.
//!
//! The exchange, after the client's COM_QUERY (sequence 0): the server sends one packet
//! `0xFB <file name>`; the client answers with the file's bytes in as many packets as it
//! likes, then an empty packet (a client that cannot or will not read the file sends only
//! the empty packet); the server then sends the statement's OK or ERR, numbered after the
//! client's last packet. The server advertises CLIENT_LOCAL_FILES; a client that did not
//! keep it in its capabilities is never asked (the statement fails instead, as MariaDB's
//! 1148 does).
//!
//! The statement runs on its own thread inside the connection's task (see [`crate::drain`]),
//! so the request is written through the command's [`Drain`] and the packets are read with
//! a `block_on` inside `block_in_place`, each within net_read_timeout. The bytes go to the
//! statement packet by packet: the file is never held whole. When the statement fails
//! part-way (a strict-mode error in row 3), the rest of the file is still read and
//! dropped, so that the client's packets do not end up read as commands.

use crate::drain::{Drain, DrainError};
use crate::packet::{FrameBuffer, PacketError, PacketReader};
use std::time::Duration;
use tokio::io::AsyncRead;

/// Why a LOCAL INFILE request did not hand over a whole file.
#[derive(Debug)]
pub enum InfileError {
    /// This connection cannot ask (the client did not offer CLIENT_LOCAL_FILES, or no
    /// thread may block here).
    Refused,
    /// Writing the request failed (the connection is lost, or the statement was stopped).
    Write(DrainError),
    /// Reading the client's packets failed or timed out: the connection is lost.
    Read(String),
    /// The statement refused a piece (its error); the rest of the file was read and
    /// dropped.
    Data(String),
}

/// A connection's way of asking its client for a file (see the module doc).
pub trait LocalInfile {
    /// Send the request for `name` through `frames` and `drain`, then hand each packet of
    /// the file to `data` until the client's empty packet. After an Err from `data`, the
    /// remaining packets are read and dropped.
    fn request(
        &mut self,
        frames: &mut FrameBuffer,
        drain: &mut dyn Drain,
        name: &str,
        data: &mut dyn FnMut(&[u8]) -> Result<(), String>,
        stop: &dyn Fn() -> bool,
    ) -> Result<(), InfileError>;
}

/// The [`LocalInfile`] over one connection's packet reader.
pub(crate) struct StreamInfile<'a, R> {
    pub reader: &'a mut PacketReader<R>,
    pub read_timeout: Duration,
}

impl<R: AsyncRead + Unpin + Send> LocalInfile for StreamInfile<'_, R> {
    fn request(
        &mut self,
        frames: &mut FrameBuffer,
        drain: &mut dyn Drain,
        name: &str,
        data: &mut dyn FnMut(&[u8]) -> Result<(), String>,
        stop: &dyn Fn() -> bool,
    ) -> Result<(), InfileError> {
        let handle = match tokio::runtime::Handle::try_current() {
            Ok(h) if h.runtime_flavor() == tokio::runtime::RuntimeFlavor::MultiThread => h,
            _ => return Err(InfileError::Refused),
        };
        let mut request = Vec::with_capacity(name.len() + 1);
        request.push(0xFB);
        request.extend_from_slice(name.as_bytes());
        frames.packet(&request);
        drain.drain(frames, stop).map_err(InfileError::Write)?;
        self.reader.next_sequence = frames.sequence();
        let mut payload = Vec::new();
        let mut refused: Option<String> = None;
        loop {
            let reader = &mut *self.reader;
            let read = tokio::task::block_in_place(|| {
                handle.block_on(tokio::time::timeout(
                    self.read_timeout,
                    reader.read_payload(&mut payload),
                ))
            });
            match read {
                Err(_) => return Err(InfileError::Read("net_read_timeout".into())),
                Ok(Err(e)) => return Err(InfileError::Read(read_error(&e))),
                Ok(Ok(())) => {}
            }
            if payload.is_empty() {
                break;
            }
            if refused.is_none() {
                if let Err(e) = data(&payload) {
                    refused = Some(e);
                }
            }
        }
        frames.set_sequence(self.reader.next_sequence);
        match refused {
            Some(e) => Err(InfileError::Data(e)),
            None => Ok(()),
        }
    }
}

fn read_error(e: &PacketError) -> String {
    e.to_string()
}

//! The MySQL client/server protocol, our own implementation on tokio: packets, handshake and
//! authentication, commands, text and binary result sets. Depends on nothing else of myriad.

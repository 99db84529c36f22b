//! The live feed to browsers: every change encoded once ([`hub`]) and written to every
//! socket by the fan-out's threads ([`peers`]), the caps on live sockets
//! ([`socket_limits`]), one WebSocket's session ([`websocket`]) and the framing both
//! share ([`frames`]).

mod frames;
pub mod hub;
mod peers;
pub mod socket_limits;
pub mod websocket;

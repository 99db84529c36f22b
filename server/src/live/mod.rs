//! The live feed to browsers: every change encoded and framed once ([`hub`],
//! [`update`]) and written to every socket by the fan-out ([`peers`]), the caps on live
//! sockets ([`socket_limits`]), one WebSocket's session ([`websocket`]) and the framing
//! they share ([`frames`]).

mod frames;
pub mod hub;
mod peers;
pub mod socket_limits;
mod update;
pub mod websocket;

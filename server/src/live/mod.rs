//! The live feed to browsers: every change fanned out once ([`hub`]), the caps on live
//! sockets ([`socket_limits`]), one WebSocket's session ([`websocket`]) and the framing
//! both share ([`frames`]).

mod frames;
pub mod hub;
pub mod socket_limits;
pub mod websocket;

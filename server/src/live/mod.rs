//! The live feed to browsers: every change fanned out once ([`hub`]), the caps on live
//! sockets ([`socket_limits`]), one WebSocket's framing and session ([`websocket`]).

pub mod hub;
pub mod socket_limits;
pub mod websocket;

//! The host on the network, under the accept loop ([`crate::server`]): the listening
//! socket and the open-file limit ([`listener`]), the connection budget and each
//! connection's deadlines ([`connections`]), the cached pages answered on the socket
//! before hyper ([`front`]), who a request comes from ([`client`]) and
//! how fast it may ask ([`rate_limit`]), the headers every response carries and the
//! requests refused before any handler ([`headers`]), and the socket shared with the
//! live fan-out once a connection is a WebSocket ([`shared`]).

pub mod client;
pub mod connections;
pub mod front;
pub mod headers;
pub mod listener;
pub mod rate_limit;
pub mod shared;

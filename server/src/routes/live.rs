//! `/api/phrases/live`: the WebSocket upgrade, under the origin check and the caps.

use axum::Extension;
use axum::extract::rejection::QueryRejection;
use axum::extract::{Query, Request, State};
use axum::http::{HeaderValue, Method, StatusCode, Version, header};
use axum::response::{IntoResponse, Response};
use hyper_util::rt::TokioIo;
use serde::Deserialize;

use crate::error::{Shed, refusal};
use crate::live::socket_limits::Full;
use crate::live::websocket;
use crate::net::client::ClientAddr;
use crate::net::shared::SharedWrite;
use crate::state::AppState;

/// A live socket's kernel send buffer, in bytes (Linux keeps twice this for its books).
const SEND_BUFFER: usize = 256 * 1024;

#[derive(Deserialize)]
pub struct LiveQuery {
    /// The version the browser already has (from the page's props).
    since: Option<u64>,
}

/// Upgrades to a WebSocket. Pages of other origins may not open it (a browser always
/// sends `Origin`), and the caps answer 503 so a client retries later or elsewhere.
pub async fn upgrade(
    State(state): State<AppState>,
    query: Result<Query<LiveQuery>, QueryRejection>,
    client: Option<Extension<ClientAddr>>,
    write_side: Option<Extension<SharedWrite>>,
    mut request: Request,
) -> Response {
    // The opening handshake is an HTTP/1.1 GET (RFC 6455, 4.1). A HEAD is routed here too,
    // and gets the refusal a GET with its headers would, as HEAD should.
    let opens_with = "the live feed opens with an HTTP/1.1 GET";
    if request.version() != Version::HTTP_11 {
        return refusal(StatusCode::BAD_REQUEST, opens_with);
    }
    let head = request.method() == Method::HEAD;
    let headers = request.headers();
    let accept = match websocket::accept_key(headers) {
        Ok(_) if head => return refusal(StatusCode::BAD_REQUEST, opens_with),
        Ok(accept) => accept,
        Err(websocket::Refused::Malformed(problem)) => {
            return refusal(StatusCode::BAD_REQUEST, problem);
        }
        Err(websocket::Refused::Version) => {
            let mut refused = refusal(
                StatusCode::UPGRADE_REQUIRED,
                "only WebSocket version 13 is spoken",
            );
            let headers = refused.headers_mut();
            // The protocol a 426 asks for, with the option that says so (RFC 9110, 7.8).
            headers.insert(header::UPGRADE, HeaderValue::from_static("websocket"));
            headers.insert(header::CONNECTION, HeaderValue::from_static("upgrade"));
            headers.insert(
                header::SEC_WEBSOCKET_VERSION,
                HeaderValue::from_static("13"),
            );
            return refused;
        }
    };
    // A browser sends one; with two, which was checked and which believed could differ.
    let mut origins = headers.get_all(header::ORIGIN).iter();
    let origin = match (origins.next(), origins.next()) {
        (Some(value), None) => value.to_str().ok(),
        _ => None,
    };
    if !origin.is_some_and(|origin| {
        state
            .config
            .site
            .allowed_origins
            .iter()
            .any(|o| o == origin)
    }) {
        tracing::debug!(?origin, "websocket from a foreign origin refused");
        return refusal(
            StatusCode::FORBIDDEN,
            "this origin may not open the live feed",
        );
    }
    let Ok(Query(query)) = query else {
        return refusal(
            StatusCode::BAD_REQUEST,
            "since is the version of the list the page has: a whole number",
        );
    };
    // Set by the accept loop on every connection it serves; not on the reserve's.
    let Some(Extension(stream)) = write_side else {
        return refusal(
            StatusCode::SERVICE_UNAVAILABLE,
            "no live feed on this connection; try again shortly",
        );
    };
    let ip = client.map(|Extension(ClientAddr(ip))| ip);
    let permit = match state.sockets.try_acquire(ip) {
        Ok(permit) => permit,
        Err(full) => {
            state.metrics.sockets_refused.inc();
            return match full {
                Full::Host => {
                    let mut refused = refusal(
                        StatusCode::SERVICE_UNAVAILABLE,
                        "too many live connections; try again shortly",
                    );
                    let shed = Shed("every live connection is taken (--max-sockets)");
                    refused.extensions_mut().insert(shed);
                    refused
                }
                // The client's own doing, as a rate limit is: not the host's failure, so
                // not an error its alerts and logs count (one office's tabs would page).
                Full::Address => {
                    let mut refused = refusal(
                        StatusCode::TOO_MANY_REQUESTS,
                        "too many live connections from this address; close some and try again",
                    );
                    refused
                        .headers_mut()
                        .insert(header::RETRY_AFTER, HeaderValue::from_static("5"));
                    refused
                }
            };
        }
    };
    // Left to autotuning, a peer that stops reading holds megabytes of kernel memory
    // until the send timeout; this holds the largest message (a change of 500 phrases,
    // some 200 KB) and bounds what each socket can owe.
    let _ = rustix::net::sockopt::set_socket_send_buffer_size(stream.stream(), SEND_BUFFER);
    let upgrading = hyper::upgrade::on(&mut request);
    let hub = state.hub.clone();
    let shutdown = state.shutdown.clone();
    let metrics = state.metrics.clone();
    state.sessions.spawn(async move {
        match upgrading.await {
            Ok(upgraded) => {
                let reader = TokioIo::new(upgraded);
                websocket::session(stream, reader, hub, query.since, shutdown, &metrics).await;
            }
            Err(error) => tracing::debug!(%error, "websocket upgrade failed"),
        }
        drop(permit);
    });
    (
        StatusCode::SWITCHING_PROTOCOLS,
        [
            (header::CONNECTION, HeaderValue::from_static("upgrade")),
            (header::UPGRADE, HeaderValue::from_static("websocket")),
            (header::SEC_WEBSOCKET_ACCEPT, accept),
        ],
    )
        .into_response()
}

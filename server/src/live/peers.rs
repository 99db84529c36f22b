//! Every live socket, written to directly by the fan-out.
//!
//! A change goes to ten thousand sockets as ten thousand writes of the same bytes. Made
//! by the sockets' own tasks, each write also costs a wake-up, a turn of the scheduler
//! and a poll; made by the fan-out in a loop over the sockets (a task for each 64, on
//! every worker at once), it costs the write alone. A socket's task is woken only for
//! what the loop cannot do without waiting: a socket that is full or behind, whose task
//! then writes under its send deadline and catches up from the hub's log.
//!
//! A socket is written by one side at a time. Its task takes it over ([`Peer::take`])
//! before writing anything of its own (the catch-up, a ping, a pong, the close) and
//! gives it back ([`Peer::give_back`]) only once it has everything the hub published;
//! the fan-out skips a socket its task holds, and hands over one it cannot finish with.

use std::collections::BTreeMap;
use std::sync::atomic::{AtomicU64, Ordering};
use std::sync::{Arc, Mutex, MutexGuard};

use prometheus::IntCounter;
use tokio::sync::{Notify, broadcast};

use crate::live::update::Update;
use crate::net::shared::SharedWrite;

/// Sockets a fan-out task writes: some 0.5 ms of writes, short enough not to hold a
/// worker from the requests it serves.
const PER_TASK: usize = 64;

/// One live socket.
pub struct Peer {
    id: u64,
    stream: SharedWrite,
    state: Mutex<State>,
    /// Told when the fan-out hands the socket over.
    handed_over: Notify,
}

struct State {
    /// The version the browser has been sent whole (at first, the one it came with).
    have: Option<u64>,
    /// The socket's task is writing: the fan-out leaves it alone.
    held: bool,
    /// A message the fan-out began and the socket's task must finish before anything else.
    begun: Option<(Update, usize)>,
}

impl Peer {
    /// Waits until the fan-out hands this socket over to its task.
    pub async fn handed_over(&self) {
        self.handed_over.notified().await;
    }

    fn state(&self) -> MutexGuard<'_, State> {
        self.state.lock().unwrap_or_else(|e| e.into_inner())
    }

    /// Takes the socket over for its task's own writes; returns a message the fan-out
    /// began, whose rest must be written first.
    pub fn take(&self) -> Option<(Update, usize)> {
        let mut state = self.state();
        state.held = true;
        state.begun.take()
    }

    /// The version the browser has.
    pub fn have(&self) -> Option<u64> {
        self.state().have
    }

    /// Records that the browser has `version` whole.
    pub fn sent(&self, version: u64) {
        self.state().have = Some(version);
    }

    /// Records that the browser has no list of this process's: what it came with is
    /// not one, and there is none to send yet.
    pub fn has_none(&self) {
        self.state().have = None;
    }

    /// Gives the socket back to the fan-out if the browser has the `newest` version
    /// published, or has no list and nothing was published since `listless_at`; if not
    /// (a change was published while the task wrote), the task keeps it, to catch up
    /// first. `newest` is read under the lock: a version the fan-out skipped the socket
    /// for is seen.
    pub fn give_back(&self, newest: impl FnOnce() -> u64, listless_at: Option<u64>) -> bool {
        let mut state = self.state();
        let newest = newest();
        let current = match state.have {
            Some(have) => have >= newest,
            None => listless_at == Some(newest),
        };
        if current {
            state.held = false;
        }
        current
    }

    /// Writes `update` if the socket can take it at once; true if it did.
    fn offer(&self, update: &Update) -> bool {
        let mut state = self.state();
        if state.held || state.have.is_some_and(|have| have >= update.version) {
            return false;
        }
        if state.have == Some(update.from) {
            let frame = update.text.frame();
            match self.stream.stream().try_write(frame) {
                Ok(written) if written == frame.len() => {
                    state.have = Some(update.version);
                    return true;
                }
                Ok(written) => state.begun = Some((update.clone(), written)),
                // Full, or broken: the task waits for room under its deadline, or ends.
                Err(_) => {}
            }
        }
        // Behind (a version it never had), or a write left to finish: its task catches up.
        state.held = true;
        drop(state);
        self.handed_over.notify_one();
        false
    }
}

/// The live sockets of one process.
#[derive(Default)]
pub struct Peers {
    next_id: AtomicU64,
    members: Mutex<Members>,
}

#[derive(Default)]
struct Members {
    /// In the order they joined, which is the order the fan-out writes them in: what the
    /// kernel and the clients keep for neighbouring sockets is near in memory. In a hash
    /// map's order, a change took 10,000 local clients 30–40 % longer to receive.
    by_id: BTreeMap<u64, Arc<Peer>>,
    /// The same, listed for the fan-out until one joins or leaves: ten thousand sockets
    /// are not listed again for every change.
    listed: Option<Arc<[Arc<Peer>]>>,
}

impl Peers {
    /// Adds a socket whose browser has `since`, held by its task until its first
    /// catch-up is written.
    pub fn join(&self, stream: SharedWrite, since: Option<u64>) -> Arc<Peer> {
        let peer = Arc::new(Peer {
            id: self.next_id.fetch_add(1, Ordering::Relaxed),
            stream,
            state: Mutex::new(State {
                have: since,
                held: true,
                begun: None,
            }),
            handed_over: Notify::new(),
        });
        let mut members = self.lock();
        members.by_id.insert(peer.id, peer.clone());
        members.listed = None;
        peer
    }

    pub fn leave(&self, peer: &Peer) {
        let mut members = self.lock();
        members.by_id.remove(&peer.id);
        members.listed = None;
    }

    fn lock(&self) -> MutexGuard<'_, Members> {
        self.members.lock().unwrap_or_else(|e| e.into_inner())
    }

    fn list(&self) -> Arc<[Arc<Peer>]> {
        let mut members = self.lock();
        let Members { by_id, listed } = &mut *members;
        listed
            .get_or_insert_with(|| by_id.values().cloned().collect())
            .clone()
    }
}

/// The fan-out: writes each update to every socket that can take it, a share of the
/// sockets per task so the runtime spreads them over its workers between the requests it
/// serves, until the hub is gone. Counts what it sent in `sent`.
pub async fn fan_out(
    peers: Arc<Peers>,
    mut updates: broadcast::Receiver<Update>,
    sent: IntCounter,
) {
    loop {
        let update = match updates.recv().await {
            Ok(update) => update,
            // The sockets see the gap in the next update, and their tasks catch up.
            Err(broadcast::error::RecvError::Lagged(_)) => continue,
            Err(broadcast::error::RecvError::Closed) => return,
        };
        let list = peers.list();
        let mut shares = tokio::task::JoinSet::new();
        for start in (0..list.len()).step_by(PER_TASK) {
            let (list, update) = (list.clone(), update.clone());
            shares.spawn(async move {
                let share = &list[start..(start + PER_TASK).min(list.len())];
                share.iter().filter(|peer| peer.offer(&update)).count() as u64
            });
        }
        // The next update waits for this one everywhere: a socket gets them in order.
        while let Some(written) = shares.join_next().await {
            sent.inc_by(written.unwrap_or(0));
        }
    }
}

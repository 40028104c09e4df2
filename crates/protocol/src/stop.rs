//! Asking every connection to stop, with nothing shared on a command's path.
//!
//! A tokio `watch` channel keeps one waiter list for all its receivers, and a waiting
//! receiver locks that list every time it is polled: a connection polls its stop wait each
//! time its read goes pending, so every command of every connection took one lock that all
//! connections share. Here each waiter waits on its own `Notify`; the shared list is locked
//! only to join, to leave and to stop.

use parking_lot::Mutex;
use std::collections::HashMap;
use std::sync::Arc;
use tokio::sync::Notify;

/// The server's stop request; cheap to clone, every clone the same signal.
#[derive(Clone, Default)]
pub struct StopSignal {
    shared: Arc<Mutex<Waiters>>,
}

#[derive(Default)]
struct Waiters {
    stopped: bool,
    next_id: u64,
    by_id: HashMap<u64, Arc<Notify>>,
}

impl StopSignal {
    pub fn new() -> StopSignal {
        StopSignal::default()
    }

    /// Ask every waiter, present and future, to stop.
    pub fn stop(&self) {
        let notifies: Vec<Arc<Notify>> = {
            let mut waiters = self.shared.lock();
            waiters.stopped = true;
            waiters.by_id.values().cloned().collect()
        };
        // A waiter not polling right now keeps the permit for its next poll.
        for notify in notifies {
            notify.notify_one();
        }
    }

    /// A waiter of its own (one per connection or accept loop).
    pub fn subscribe(&self) -> StopWaiter {
        let notify = Arc::new(Notify::new());
        let mut waiters = self.shared.lock();
        let id = waiters.next_id;
        waiters.next_id += 1;
        let stopped_before = waiters.stopped;
        if !stopped_before {
            waiters.by_id.insert(id, Arc::clone(&notify));
        }
        StopWaiter {
            signal: self.clone(),
            id,
            notify,
            stopped_before,
        }
    }
}

/// One waiter's end of a [`StopSignal`]; leaves the signal's list when dropped.
pub struct StopWaiter {
    signal: StopSignal,
    id: u64,
    notify: Arc<Notify>,
    stopped_before: bool,
}

impl StopWaiter {
    /// Resolves once the server asked to stop (at once if it had before this waiter joined).
    /// Polling it locks only this waiter's own `Notify`.
    pub async fn stopped(&self) {
        if !self.stopped_before {
            self.notify.notified().await;
        }
    }
}

impl Drop for StopWaiter {
    fn drop(&mut self) {
        self.signal.shared.lock().by_id.remove(&self.id);
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use std::time::Duration;

    fn resolves(waiter: &StopWaiter) -> bool {
        let runtime = tokio::runtime::Builder::new_current_thread()
            .enable_time()
            .build()
            .unwrap();
        runtime.block_on(async {
            tokio::time::timeout(Duration::from_millis(50), waiter.stopped())
                .await
                .is_ok()
        })
    }

    #[test]
    fn waiters_resolve_only_after_stop_whenever_they_joined_or_polled() {
        let signal = StopSignal::new();
        let polled_before = signal.subscribe();
        let not_polled_before = signal.subscribe();
        assert!(!resolves(&polled_before), "no stop asked yet");
        signal.stop();
        assert!(resolves(&polled_before));
        assert!(
            resolves(&not_polled_before),
            "a stop asked while not polling is kept"
        );
        let joined_after = signal.subscribe();
        assert!(
            resolves(&joined_after),
            "a waiter joining after the stop sees it"
        );
        assert!(
            signal.shared.lock().by_id.len() == 2,
            "a waiter joining after the stop is not listed"
        );
    }

    #[test]
    fn a_dropped_waiter_leaves_the_list() {
        let signal = StopSignal::new();
        let waiters: Vec<StopWaiter> = (0..3).map(|_| signal.subscribe()).collect();
        assert_eq!(signal.shared.lock().by_id.len(), 3);
        drop(waiters);
        assert!(signal.shared.lock().by_id.is_empty());
    }
}

//! React rendering on dedicated threads.
//!
//! A `JsRuntime` is not `Send`, so each renderer thread owns one engine that loaded the
//! server bundle once. Requests reach the threads over one bounded queue and get their
//! answer on a oneshot channel, so no tokio worker ever waits on JavaScript. A watchdog
//! per thread stops a render that runs past the time limit; the thread then rebuilds its
//! engine, because a stopped engine may hold half-updated state.
//!
//! Each render names the bundle to run, which a thread loads first when it runs another
//! (development: a new UI build), so a page's HTML comes from the bundle of the build whose
//! scripts it links, even while the pool moves from one build to the next.

use std::sync::atomic::{AtomicBool, Ordering};
use std::sync::{Arc, Condvar, Mutex};
use std::thread;
use std::time::{Duration, Instant};

use crossbeam_channel::{Receiver, Sender, TrySendError};
use deno_core::v8;
use deno_core::{JsRuntime, RuntimeOptions};
use tokio::sync::oneshot;

/// Why a render produced no HTML.
#[derive(Debug, Clone, thiserror::Error)]
pub enum RenderError {
    #[error("every renderer is busy and the queue is full")]
    Busy,
    #[error("the render ran past {0:?} and was stopped")]
    Timeout(Duration),
    #[error("the server bundle threw: {message}")]
    Js {
        message: String,
        /// The JS stack, for the log only.
        stack: Option<String>,
    },
    #[error("the JS engine could not start: {0}")]
    Engine(String),
    #[error("the renderers have stopped")]
    Stopped,
}

/// How the pool is built.
#[derive(Debug, Clone)]
pub struct PoolOptions {
    /// Renderer threads, each with its own engine.
    pub threads: usize,
    /// Longest a single render may run.
    pub timeout: Duration,
    /// Renders that may wait before callers get [`RenderError::Busy`].
    pub queue: usize,
}

struct Job {
    bundle: Arc<str>,
    request: String,
    reply: oneshot::Sender<Result<String, RenderError>>,
}

/// A handle to the renderer threads; cheap to clone.
#[derive(Clone)]
pub struct RendererPool {
    jobs: Sender<Job>,
}

impl RendererPool {
    /// Starts the threads and waits until each engine loaded `bundle`, so a broken
    /// bundle is reported at start-up rather than on the first request.
    pub fn start(bundle: Arc<str>, options: PoolOptions) -> Result<Self, RenderError> {
        let (jobs, queue) = crossbeam_channel::bounded::<Job>(options.queue);
        let mut ready = Vec::new();
        for index in 0..options.threads.max(1) {
            let (ready_tx, ready_rx) = std::sync::mpsc::channel();
            let queue = queue.clone();
            let bundle = bundle.clone();
            let timeout = options.timeout;
            thread::Builder::new()
                .name(format!("renderer-{index}"))
                .spawn(move || renderer_thread(bundle, queue, timeout, ready_tx))
                .map_err(|e| RenderError::Engine(e.to_string()))?;
            ready.push(ready_rx);
        }
        for ready_rx in ready {
            ready_rx.recv().map_err(|_| RenderError::Stopped)??;
        }
        Ok(Self { jobs })
    }

    /// Loads `bundle` once, here and blocking, so that one that does not load (a build
    /// written halfway) is refused before any render is asked to run it.
    pub fn check(bundle: &Arc<str>) -> Result<(), RenderError> {
        Engine::load(bundle).map(drop)
    }

    /// Renders one request (`{"route": …, "props": …}` as JSON) to HTML with `bundle`
    /// (one the pool started with or [`RendererPool::check`] passed).
    pub async fn render(&self, bundle: &Arc<str>, request: String) -> Result<String, RenderError> {
        let (reply, answer) = oneshot::channel();
        let bundle = bundle.clone();
        match self.jobs.try_send(Job {
            bundle,
            request,
            reply,
        }) {
            Ok(()) => {}
            Err(TrySendError::Full(_)) => return Err(RenderError::Busy),
            Err(TrySendError::Disconnected(_)) => return Err(RenderError::Stopped),
        }
        answer.await.unwrap_or(Err(RenderError::Stopped))
    }
}

fn renderer_thread(
    mut bundle: Arc<str>,
    queue: Receiver<Job>,
    timeout: Duration,
    ready: std::sync::mpsc::Sender<Result<(), RenderError>>,
) {
    let mut engine = match Engine::load(&bundle) {
        Ok(engine) => {
            let _ = ready.send(Ok(()));
            engine
        }
        Err(error) => {
            let _ = ready.send(Err(error));
            return;
        }
    };
    let watchdog = Watchdog::start();
    while let Ok(job) = queue.recv() {
        if job.reply.is_closed() {
            continue;
        }
        if !Arc::ptr_eq(&bundle, &job.bundle) {
            match Engine::load(&job.bundle) {
                Ok(fresh) => (engine, bundle) = (fresh, job.bundle),
                Err(error) => {
                    let _ = job.reply.send(Err(error));
                    continue;
                }
            }
        }
        let fired = watchdog.arm(engine.isolate_handle(), timeout);
        let result = engine.render(&job.request);
        watchdog.disarm();
        let result = match result {
            Err(_) if fired.load(Ordering::SeqCst) => Err(RenderError::Timeout(timeout)),
            other => other,
        };
        if matches!(result, Err(RenderError::Timeout(_))) {
            tracing::warn!(
                ?timeout,
                "render stopped by the time limit; rebuilding the engine"
            );
            match Engine::load(&bundle) {
                Ok(fresh) => engine = fresh,
                Err(error) => {
                    tracing::error!(%error, "a renderer could not rebuild its engine");
                    let _ = job.reply.send(result);
                    return;
                }
            }
        }
        let _ = job.reply.send(result);
    }
}

/// One JS engine with the server bundle loaded.
struct Engine {
    runtime: JsRuntime,
    render: v8::Global<v8::Function>,
}

impl Engine {
    fn load(bundle: &Arc<str>) -> Result<Self, RenderError> {
        let mut runtime = JsRuntime::new(RuntimeOptions::default());
        runtime
            .execute_script("server.js", bundle.clone())
            .map_err(|e| RenderError::Engine(e.to_string()))?;
        let value = runtime
            .execute_script(
                "<lookup>",
                "globalThis.__lastwords && globalThis.__lastwords.render",
            )
            .map_err(|e| RenderError::Engine(e.to_string()))?;
        let render = {
            deno_core::scope!(scope, &mut runtime);
            let local = v8::Local::new(scope, value);
            let function = v8::Local::<v8::Function>::try_from(local).map_err(|_| {
                RenderError::Engine("the bundle does not define __lastwords.render".into())
            })?;
            v8::Global::new(scope, function)
        };
        Ok(Self { runtime, render })
    }

    fn isolate_handle(&mut self) -> v8::IsolateHandle {
        self.runtime.v8_isolate().thread_safe_handle()
    }

    fn render(&mut self, request: &str) -> Result<String, RenderError> {
        deno_core::scope!(scope, &mut self.runtime);
        let argument = v8::String::new(scope, request)
            .ok_or_else(|| RenderError::Engine("request too large for the engine".into()))?;
        v8::tc_scope!(let scope, scope);
        let function = v8::Local::new(scope, &self.render);
        let receiver = v8::undefined(scope).into();
        match function.call(scope, receiver, &[argument.into()]) {
            Some(html) if html.is_string() => Ok(html.to_rust_string_lossy(scope)),
            Some(_) => Err(RenderError::Js {
                message: "render did not return a string".into(),
                stack: None,
            }),
            None if scope.is_execution_terminating() || !scope.has_caught() => {
                Err(RenderError::Timeout(Duration::ZERO))
            }
            None => {
                let exception = scope
                    .exception()
                    .unwrap_or_else(|| v8::undefined(scope).into());
                let error = deno_core::error::JsError::from_v8_exception(scope, exception);
                Err(RenderError::Js {
                    message: error.exception_message.clone(),
                    stack: error.stack.clone(),
                })
            }
        }
    }
}

/// Stops a render that runs too long, from a thread of its own, which sleeps until a
/// render starts: an idle host wakes for nothing.
struct Watchdog {
    state: Arc<(Mutex<Watch>, Condvar)>,
}

#[derive(Default)]
struct Watch {
    armed: Option<Armed>,
    /// The watchdog was dropped: its thread ends.
    closed: bool,
}

struct Armed {
    deadline: Instant,
    isolate: v8::IsolateHandle,
    fired: Arc<AtomicBool>,
}

impl Watchdog {
    fn start() -> Self {
        let state: Arc<(Mutex<Watch>, Condvar)> = Arc::default();
        let watched = state.clone();
        thread::Builder::new()
            .name("render-watchdog".into())
            .spawn(move || {
                let (lock, wake) = &*watched;
                let Ok(mut guard) = lock.lock() else { return };
                while !guard.closed {
                    let deadline = guard.armed.as_ref().map(|armed| armed.deadline);
                    guard = match deadline {
                        None => match wake.wait(guard) {
                            Ok(guard) => guard,
                            Err(_) => return,
                        },
                        Some(deadline) => {
                            let wait = deadline.saturating_duration_since(Instant::now());
                            match wake.wait_timeout(guard, wait) {
                                Ok((guard, _)) => guard,
                                Err(_) => return,
                            }
                        }
                    };
                    if let Some(armed) = guard.armed.as_ref()
                        && Instant::now() >= armed.deadline
                        && !armed.fired.swap(true, Ordering::SeqCst)
                    {
                        armed.isolate.terminate_execution();
                    }
                }
            })
            .ok();
        Self { state }
    }

    /// Watches the next render; the returned flag turns true if it was stopped.
    fn arm(&self, isolate: v8::IsolateHandle, timeout: Duration) -> Arc<AtomicBool> {
        let fired = Arc::new(AtomicBool::new(false));
        self.set(Some(Armed {
            deadline: Instant::now() + timeout,
            isolate,
            fired: fired.clone(),
        }));
        fired
    }

    fn disarm(&self) {
        self.set(None);
    }

    fn set(&self, armed: Option<Armed>) {
        let (lock, wake) = &*self.state;
        if let Ok(mut guard) = lock.lock() {
            guard.armed = armed;
            wake.notify_one();
        }
    }
}

impl Drop for Watchdog {
    fn drop(&mut self) {
        let (lock, wake) = &*self.state;
        if let Ok(mut guard) = lock.lock() {
            guard.closed = true;
            wake.notify_one();
        }
    }
}

#[cfg(test)]
mod tests {
    use std::pin::Pin;
    use std::task::{Context, Waker};

    use super::*;

    const ECHO: &str = r#"globalThis.__lastwords = { render(request) {
        const { route } = JSON.parse(request);
        if (route === "loop") { for (;;) {} }
        if (route === "throw") { throw new Error("boom in render"); }
        return "<p>" + route + "</p>";
    } };"#;

    fn echo() -> Arc<str> {
        ECHO.into()
    }

    /// A pool of one thread that runs `bundle`, and its `render`.
    fn pool(timeout_ms: u64) -> (RendererPool, Arc<str>) {
        let bundle = echo();
        let pool = RendererPool::start(
            bundle.clone(),
            PoolOptions {
                threads: 1,
                timeout: Duration::from_millis(timeout_ms),
                queue: 4,
            },
        )
        .expect("the test bundle loads");
        (pool, bundle)
    }

    #[tokio::test]
    async fn renders_through_the_bundle() {
        let (pool, bundle) = pool(2000);
        let html = pool.render(&bundle, r#"{"route":"home"}"#.into()).await;
        assert_eq!(html.unwrap(), "<p>home</p>");
    }

    /// Polls `render` once, which queues its job, and gives it back to be awaited later.
    fn queued<F: Future>(render: F) -> Pin<Box<F>> {
        let mut render = Box::pin(render);
        let mut context = Context::from_waker(Waker::noop());
        assert!(
            render.as_mut().poll(&mut context).is_pending(),
            "the render was answered before it was queued"
        );
        render
    }

    #[tokio::test]
    async fn a_render_that_loops_forever_is_stopped_and_the_next_one_succeeds() {
        const LIMIT: Duration = Duration::from_millis(300);
        // Starting a pool loads an engine, as stopping a render does to rebuild it: what
        // that takes on this machine sets how soon after the limit the answer must come.
        let loading = Instant::now();
        let (pool, bundle) = pool(LIMIT.as_millis() as u64);
        let load = loading.elapsed();
        let started = Instant::now();
        let stopped = pool.render(&bundle, r#"{"route":"loop"}"#.into()).await;
        let took = started.elapsed();
        assert!(
            matches!(stopped, Err(RenderError::Timeout(_))),
            "{stopped:?}"
        );
        let latest = LIMIT + (load * 4).max(Duration::from_millis(500));
        assert!(
            took >= LIMIT && took < latest,
            "stopped after {took:?}, not between the {LIMIT:?} limit and {latest:?} (an engine loads in {load:?})"
        );
        let next = pool.render(&bundle, r#"{"route":"words"}"#.into()).await;
        assert_eq!(next.unwrap(), "<p>words</p>");
    }

    #[tokio::test]
    async fn a_full_queue_answers_busy_at_once() {
        // The looping render holds the one thread until the limit; the steps below take
        // microseconds once the thread has it.
        let bundle = echo();
        let pool = RendererPool::start(
            bundle.clone(),
            PoolOptions {
                threads: 1,
                timeout: Duration::from_secs(1),
                queue: 1,
            },
        )
        .expect("the test bundle loads");
        let stuck = queued(pool.render(&bundle, r#"{"route":"loop"}"#.into()));
        let queued_at = Instant::now();
        while !pool.jobs.is_empty() {
            assert!(
                queued_at.elapsed() < Duration::from_secs(30),
                "the thread never took the looping render"
            );
            tokio::time::sleep(Duration::from_millis(5)).await;
        }
        let waiting = queued(pool.render(&bundle, r#"{"route":"home"}"#.into()));
        assert!(pool.jobs.is_full(), "the next render waits in the queue");
        let refused = pool.render(&bundle, r#"{"route":"home"}"#.into()).await;
        assert!(matches!(refused, Err(RenderError::Busy)), "{refused:?}");
        let stuck = stuck.await;
        assert!(matches!(stuck, Err(RenderError::Timeout(_))), "{stuck:?}");
        assert_eq!(waiting.await.unwrap(), "<p>home</p>");
    }

    #[tokio::test]
    async fn a_js_exception_carries_its_message_and_stack() {
        let (pool, bundle) = pool(2000);
        let error = pool.render(&bundle, r#"{"route":"throw"}"#.into()).await;
        let Err(RenderError::Js { message, stack }) = error else {
            panic!("expected a JS error, got {error:?}");
        };
        assert!(message.contains("boom in render"), "{message}");
        assert!(stack.is_some_and(|s| s.contains("render")));
    }

    #[tokio::test]
    async fn each_render_runs_the_bundle_it_names_on_every_thread_and_a_broken_one_is_refused() {
        // The page's HTML and the scripts it links come from one build, however the
        // renders of two builds interleave while the pool moves from one to the next.
        let old = echo();
        let pool = RendererPool::start(
            old.clone(),
            PoolOptions {
                threads: 2,
                timeout: Duration::from_secs(2),
                queue: 16,
            },
        )
        .expect("the test bundle loads");
        let new: Arc<str> = ECHO.replace("<p>", "<p class=new>").into();
        RendererPool::check(&new).expect("the new bundle loads");
        // At once, so both threads take some of each.
        let renders = (0..12).map(|i| {
            let (pool, bundle) = (
                pool.clone(),
                if i % 3 == 0 { old.clone() } else { new.clone() },
            );
            let from_old = Arc::ptr_eq(&bundle, &old);
            async move {
                (
                    from_old,
                    pool.render(&bundle, r#"{"route":"home"}"#.into()).await,
                )
            }
        });
        for (from_old, html) in futures_util::future::join_all(renders).await {
            let expected = if from_old {
                "<p>home</p>"
            } else {
                "<p class=new>home</p>"
            };
            assert_eq!(html.unwrap(), expected);
        }
        let broken: Arc<str> = "throw new Error('half written');".into();
        let refused = RendererPool::check(&broken);
        assert!(
            matches!(refused, Err(RenderError::Engine(_))),
            "{refused:?}"
        );
        let html = pool.render(&new, r#"{"route":"words"}"#.into()).await;
        assert_eq!(html.unwrap(), "<p class=new>words</p>");
    }

    #[test]
    fn a_bundle_without_the_render_function_fails_at_start() {
        let result = RendererPool::start(
            "globalThis.x = 1;".into(),
            PoolOptions {
                threads: 1,
                timeout: Duration::from_secs(1),
                queue: 1,
            },
        );
        assert!(matches!(result, Err(RenderError::Engine(_))));
    }
}

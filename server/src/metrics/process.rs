//! The process series of `/metrics` (CPU, memory, threads, descriptors, start time), read
//! from `/proc/self` when it is scraped, under the names and help texts Prometheus'
//! client libraries give them. Read here rather than by the `prometheus` crate's process
//! collector, which brought procfs and a second rustix into every build. A series whose
//! source cannot be read is left out of that scrape.

use std::sync::OnceLock;

use prometheus::proto::MetricFamily;
use rustix::process::{Resource, getrlimit};

use super::{counter, gauge};

/// Every process series that can be read now.
pub fn families() -> Vec<MetricFamily> {
    let mut families = Vec::with_capacity(7);
    let ticks = rustix::param::clock_ticks_per_second() as f64;
    if let Some(stat) = std::fs::read_to_string("/proc/self/stat")
        .ok()
        .and_then(|text| Stat::parse(&text))
    {
        families.push(counter(
            "process_cpu_seconds_total",
            "Total user and system CPU time spent in seconds.",
            (stat.utime + stat.stime) as f64 / ticks,
        ));
        families.push(gauge(
            "process_virtual_memory_bytes",
            "Virtual memory size in bytes.",
            stat.vsize as f64,
        ));
        families.push(gauge(
            "process_resident_memory_bytes",
            "Resident memory size in bytes.",
            (stat.rss_pages * rustix::param::page_size() as u64) as f64,
        ));
        families.push(gauge(
            "process_threads",
            "Number of OS threads in the process.",
            stat.threads as f64,
        ));
        if let Some(start) = start_time(stat.start_ticks, ticks) {
            families.push(gauge(
                "process_start_time_seconds",
                "Start time of the process since unix epoch in seconds.",
                start,
            ));
        }
    }
    if let Ok(entries) = std::fs::read_dir("/proc/self/fd") {
        families.push(gauge(
            "process_open_fds",
            "Number of open file descriptors.",
            entries.count() as f64,
        ));
    }
    if let Some(max) = getrlimit(Resource::Nofile).current {
        families.push(gauge(
            "process_max_fds",
            "Maximum number of open file descriptors.",
            max as f64,
        ));
    }
    families
}

/// The fields of `/proc/self/stat` the series are made of (proc(5)).
#[derive(Debug, PartialEq)]
struct Stat {
    utime: u64,
    stime: u64,
    threads: u64,
    start_ticks: u64,
    vsize: u64,
    rss_pages: u64,
}

impl Stat {
    fn parse(text: &str) -> Option<Stat> {
        // The command name, in parentheses, may hold spaces and parentheses itself; the
        // fields counted from the state (the third) follow the last `)`.
        let (_, after) = text.rsplit_once(')')?;
        let fields: Vec<&str> = after.split_ascii_whitespace().collect();
        let field = |number: usize| fields.get(number - 3)?.parse::<u64>().ok();
        Some(Stat {
            utime: field(14)?,
            stime: field(15)?,
            threads: field(20)?,
            start_ticks: field(22)?,
            vsize: field(23)?,
            rss_pages: field(24)?,
        })
    }
}

/// When the process started, in seconds since the epoch: the boot time `/proc/stat` gives
/// and the ticks after it the process started, read once since neither changes.
fn start_time(start_ticks: u64, ticks: f64) -> Option<f64> {
    static BOOT: OnceLock<Option<u64>> = OnceLock::new();
    let boot = (*BOOT.get_or_init(|| {
        std::fs::read_to_string("/proc/stat")
            .ok()?
            .lines()
            .find_map(|line| line.strip_prefix("btime ")?.trim().parse().ok())
    }))?;
    Some(boot as f64 + start_ticks as f64 / ticks)
}

#[cfg(test)]
mod tests {
    use super::*;
    use prometheus::proto::MetricType;

    fn value(families: &[MetricFamily], name: &str) -> f64 {
        let family = families
            .iter()
            .find(|family| family.name() == name)
            .unwrap_or_else(|| panic!("no {name}"));
        let metric = &family.get_metric()[0];
        match family.get_field_type() {
            MetricType::COUNTER => metric.get_counter().get_value(),
            _ => metric.get_gauge().get_value(),
        }
    }

    #[test]
    fn a_command_name_with_spaces_and_parentheses_is_read_past() {
        let line = "4242 (a b) (c)) S 1 4242 4242 0 -1 4194560 900 0 0 0 \
                    250 75 0 0 20 0 9 0 12345 2097152000 5120 18446744073709551615";
        assert_eq!(
            Stat::parse(line),
            Some(Stat {
                utime: 250,
                stime: 75,
                threads: 9,
                start_ticks: 12345,
                vsize: 2_097_152_000,
                rss_pages: 5120,
            })
        );
        assert_eq!(Stat::parse("4242 (cut short) S 1 2"), None);
        assert_eq!(Stat::parse("no parenthesis"), None);
    }

    #[test]
    fn the_series_follow_the_process() {
        let before = families();
        let names: Vec<&str> = before.iter().map(|family| family.name()).collect();
        assert_eq!(
            names,
            [
                "process_cpu_seconds_total",
                "process_virtual_memory_bytes",
                "process_resident_memory_bytes",
                "process_threads",
                "process_start_time_seconds",
                "process_open_fds",
                "process_max_fds",
            ]
        );

        let files: Vec<std::fs::File> = (0..20)
            .map(|_| std::fs::File::open("/proc/self/stat").expect("open"))
            .collect();
        // 0.3 s of this thread's own CPU time, however long a busy machine takes to give
        // it (300 ms of the clock gave it less than 0.2 s beside a build).
        let thread_ticks = || {
            let stat = std::fs::read_to_string("/proc/thread-self/stat").expect("thread stat");
            let fields: Vec<u64> = stat
                .rsplit_once(") ")
                .expect("comm")
                .1
                .split(' ')
                .skip(11)
                .take(2)
                .map(|field| field.parse().expect("ticks"))
                .collect();
            fields.iter().sum::<u64>()
        };
        let (spin, start) = (std::time::Instant::now(), thread_ticks());
        while thread_ticks() < start + 30 && spin.elapsed() < std::time::Duration::from_secs(30) {
            std::hint::black_box(spin.elapsed());
        }
        let thread = std::thread::spawn(|| std::thread::sleep(std::time::Duration::from_secs(1)));
        let after = families();
        drop(files);

        // Other tests of this binary open files and start threads at the same time, so
        // only what this one holds is certain; CPU time only grows.
        assert!(value(&after, "process_open_fds") >= 20.0);
        assert!(value(&after, "process_open_fds") < value(&after, "process_max_fds"));
        assert!(
            value(&after, "process_cpu_seconds_total")
                >= value(&before, "process_cpu_seconds_total") + 0.2
        );
        assert!(value(&after, "process_threads") >= 2.0);
        assert!(value(&after, "process_resident_memory_bytes") > 1024.0 * 1024.0);
        assert!(
            value(&after, "process_virtual_memory_bytes")
                >= value(&after, "process_resident_memory_bytes")
        );
        let now = std::time::SystemTime::now()
            .duration_since(std::time::UNIX_EPOCH)
            .expect("after 1970")
            .as_secs_f64();
        let started = value(&after, "process_start_time_seconds");
        assert!(
            started <= now + 1.0 && started > now - 3600.0,
            "{started} against {now}"
        );
        thread.join().expect("the sleeping thread");
    }
}

package dev.idempotency.testsupport;

import java.time.Duration;

import org.awaitility.Awaitility;
import org.awaitility.pollinterval.IterativePollInterval;
import org.junit.platform.launcher.LauncherSession;
import org.junit.platform.launcher.LauncherSessionListener;

/**
 * Awaitility's defaults for every test of this module, set once per test JVM (registered in
 * {@code META-INF/services}). Awaitility's own first check comes after 100 ms and the next ones
 * every 100 ms, so each await returned up to 200 ms after its condition held, a few hundred times
 * per run. Here the first check is at once and the interval doubles from 5 ms to the same 100 ms:
 * a condition that holds soon is seen within milliseconds, a slow one is polled every 100 ms as
 * before. An await that sets its own poll interval or delay keeps it. As the first check comes at
 * once, an await must name the state it waits for, not count on the 100 ms to reach it.
 */
public final class AwaitilityDefaults implements LauncherSessionListener {

	static final Duration FIRST_INTERVAL = Duration.ofMillis(5);

	static final Duration MAX_INTERVAL = Duration.ofMillis(100);

	@Override
	public void launcherSessionOpened(LauncherSession session) {
		// Not a fixed interval, so the poll delay defaults to none.
		Awaitility.setDefaultPollInterval(new IterativePollInterval(
				(previous) -> (previous.compareTo(MAX_INTERVAL.dividedBy(2)) < 0) ? previous.multipliedBy(2)
						: MAX_INTERVAL,
				FIRST_INTERVAL));
	}

}

package dev.idempotency.fault;

import java.lang.management.ManagementFactory;
import java.nio.file.Path;
import java.util.Arrays;
import java.util.stream.Collectors;

import dev.idempotency.core.IdempotencyOutcome;
import dev.idempotency.metrics.IdempotencyMeters;
import io.micrometer.core.instrument.MeterRegistry;
import io.micrometer.core.instrument.simple.SimpleMeterRegistry;
import jakarta.annotation.PreDestroy;

import org.springframework.beans.factory.annotation.Value;
import org.springframework.boot.context.event.ApplicationReadyEvent;
import org.springframework.context.ApplicationListener;
import org.springframework.context.annotation.Bean;
import org.springframework.context.annotation.Configuration;
import org.springframework.jdbc.core.JdbcTemplate;

/**
 * The beans every child application shares, whatever its transport: the kill points, the journal,
 * the points ledger, the meter registry, and the {@code READY} and {@code METRICS} lines.
 */
@Configuration(proxyBeanMethods = false)
class FaultChildConfiguration {

	@Bean
	static FaultPoints faultPoints(@Value("${fault.kill-point:none}") String point,
			@Value("${fault.kill-at:1}") int at) {
		FaultPoints points = new FaultPoints(point, at);
		points.readCommands();
		return points;
	}

	@Bean
	EventJournal eventJournal(@Value("${fault.events-file}") Path file) {
		return new EventJournal(file);
	}

	@Bean
	SimpleMeterRegistry meterRegistry() {
		return new SimpleMeterRegistry();
	}

	@Bean
	PointsLedger pointsLedger(JdbcTemplate jdbc, FaultPoints faultPoints, @Value("${fault.run-id}") String runId,
			@Value("${fault.child}") String child) {
		return new PointsLedger(jdbc, faultPoints, runId, child);
	}

	@Bean
	ApplicationListener<ApplicationReadyEvent> announceReady() {
		// The JVM's uptime: how long the child took to start (the suite's runs compare it).
		return (event) -> FaultChild.announce("READY pid=" + ProcessHandle.current().pid() + " uptime="
				+ ManagementFactory.getRuntimeMXBean().getUptime() + "ms");
	}

	@Bean
	ShutdownReport shutdownReport(MeterRegistry registry, EventJournal journal) {
		return new ShutdownReport(registry, journal);
	}

	/**
	 * On a clean shutdown (after the listener containers stopped), prints this incarnation's
	 * {@code idempotency.invocations} counts by outcome, so the parent can compare them with the
	 * journal, and its fail-closed meters ({@code idempotency.listener.pauses}, summed over the
	 * listeners, and {@code idempotency.listener.paused}).
	 */
	static final class ShutdownReport {

		private final MeterRegistry registry;

		private final EventJournal journal;

		ShutdownReport(MeterRegistry registry, EventJournal journal) {
			this.registry = registry;
			this.journal = journal;
		}

		@PreDestroy
		void report() {
			String counts = Arrays.stream(IdempotencyOutcome.values())
				.map((outcome) -> outcome.tag() + "=" + (long) this.registry.find(IdempotencyMeters.INVOCATIONS)
					.tag(IdempotencyMeters.OUTCOME_TAG, outcome.tag())
					.timers()
					.stream()
					.mapToLong((timer) -> timer.count())
					.sum())
				.collect(Collectors.joining(" "));
			double deadLettered = this.registry.find(IdempotencyMeters.DEAD_LETTERED)
				.counters()
				.stream()
				.mapToDouble((counter) -> counter.count())
				.sum();
			// Fail-closed: pauses counted over the incarnation, and whether a listener is paused now.
			double pauses = this.registry.find(IdempotencyMeters.LISTENER_PAUSES)
				.counters()
				.stream()
				.mapToDouble((counter) -> counter.count())
				.sum();
			double paused = this.registry.find(IdempotencyMeters.LISTENER_PAUSED)
				.gauges()
				.stream()
				.mapToDouble((gauge) -> gauge.value())
				.sum();
			this.journal.closeCleanly();
			FaultChild.announce("METRICS " + counts + " dead_lettered=" + (long) deadLettered + " pauses="
					+ (long) pauses + " paused=" + (long) paused);
		}

	}

}

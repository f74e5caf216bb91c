package dev.idempotency.fault;

import java.nio.file.Path;
import java.util.Map;
import java.util.stream.Collectors;

import dev.idempotency.core.IdempotencyOutcome;
import dev.idempotency.metrics.IdempotencyMeters;
import io.micrometer.core.instrument.MeterRegistry;
import io.micrometer.core.instrument.simple.SimpleMeterRegistry;
import jakarta.annotation.PreDestroy;
import org.apache.kafka.common.serialization.ByteArraySerializer;

import org.springframework.beans.factory.annotation.Value;
import org.springframework.boot.SpringApplication;
import org.springframework.boot.SpringBootConfiguration;
import org.springframework.boot.autoconfigure.EnableAutoConfiguration;
import org.springframework.boot.autoconfigure.condition.ConditionalOnProperty;
import org.springframework.boot.kafka.autoconfigure.DefaultKafkaProducerFactoryCustomizer;
import org.springframework.context.ApplicationListener;
import org.springframework.boot.context.event.ApplicationReadyEvent;
import org.springframework.context.annotation.Bean;
import org.springframework.jdbc.core.JdbcTemplate;
import org.springframework.kafka.core.DefaultKafkaProducerFactory;
import org.springframework.kafka.support.serializer.DelegatingByTypeSerializer;
import org.springframework.kafka.support.serializer.JacksonJsonSerializer;

/**
 * The consumer the fault-injection suite runs as child JVMs: {@code @KafkaListener} +
 * {@code @Idempotent(key = "#msg.orderId")} crediting points in PostgreSQL, with the starter's JDBC
 * store in the same database. It writes its {@link EventJournal}, stops at {@link FaultPoints}, and
 * talks to the parent through stdout lines starting with {@value #PREFIX} and commands on stdin.
 * <p>
 * Launched as {@code java -cp <class path> dev.idempotency.fault.FaultConsumerApplication} with
 * system properties (see {@code fault-consumer.properties}).
 */
@SpringBootConfiguration(proxyBeanMethods = false)
@EnableAutoConfiguration
public class FaultConsumerApplication {

	/** Prefix of the lines the parent reads. */
	public static final String PREFIX = "@@FAULT ";

	public static void main(String[] args) {
		long maxLifetimeSeconds = Long.getLong("fault.max-lifetime-seconds", 1800);
		Thread watchdog = new Thread(() -> {
			try {
				Thread.sleep(maxLifetimeSeconds * 1000);
				announce("WATCHDOG halting after " + maxLifetimeSeconds + "s");
				Runtime.getRuntime().halt(4);
			}
			catch (InterruptedException ex) {
				Thread.currentThread().interrupt();
			}
		}, "fault-watchdog");
		watchdog.setDaemon(true);
		watchdog.start();
		SpringApplication application = new SpringApplication(FaultConsumerApplication.class);
		application.setDefaultProperties(Map.of("spring.config.name", "fault-consumer"));
		application.run(args);
	}

	static void announce(String line) {
		synchronized (System.out) {
			System.out.println(PREFIX + line);
			System.out.flush();
		}
	}

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
	@ConditionalOnProperty(name = "fault.ack-mode", havingValue = "record")
	OrderListeners.RecordAck recordAckListener(PointsLedger ledger) {
		return new OrderListeners.RecordAck(ledger);
	}

	@Bean
	@ConditionalOnProperty(name = "fault.ack-mode", havingValue = "manual_immediate", matchIfMissing = true)
	OrderListeners.ManualAck manualAckListener(PointsLedger ledger) {
		return new OrderListeners.ManualAck(ledger);
	}

	/** Dead letters: raw bytes for a record that could not be read, JSON for an OrderPlaced. */
	@Bean
	DefaultKafkaProducerFactoryCustomizer deadLetterSerializer() {
		return (factory) -> ((DefaultKafkaProducerFactory<Object, Object>) factory)
			.setValueSerializer(new DelegatingByTypeSerializer(Map.of(byte[].class, new ByteArraySerializer(),
					OrderPlaced.class, new JacksonJsonSerializer<>())));
	}

	@Bean
	ApplicationListener<ApplicationReadyEvent> announceReady() {
		return (event) -> announce("READY pid=" + ProcessHandle.current().pid());
	}

	@Bean
	ShutdownReport shutdownReport(MeterRegistry registry, EventJournal journal) {
		return new ShutdownReport(registry, journal);
	}

	/**
	 * On a clean shutdown (after the listener containers stopped), prints this incarnation's
	 * {@code idempotency.invocations} counts by outcome, so the parent can compare them with the
	 * journal.
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
			String counts = java.util.Arrays.stream(IdempotencyOutcome.values())
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
			this.journal.closeCleanly();
			announce("METRICS " + counts + " dead_lettered=" + (long) deadLettered);
		}

	}

}

package dev.idempotency.sample;

import dev.idempotency.metrics.IdempotencyMeters;
import io.micrometer.core.instrument.MeterRegistry;
import io.micrometer.core.instrument.Timer;
import org.apache.commons.logging.Log;
import org.apache.commons.logging.LogFactory;
import org.jspecify.annotations.Nullable;

import org.springframework.boot.ApplicationArguments;
import org.springframework.boot.ApplicationRunner;
import org.springframework.boot.ExitCodeGenerator;
import org.springframework.boot.autoconfigure.condition.ConditionalOnBooleanProperty;
import org.springframework.jdbc.core.JdbcTemplate;
import org.springframework.stereotype.Component;

/**
 * Publishes the demo's orders, waits until the broker has delivered them all, and logs what
 * happened. The exit code is 0 when every order was credited exactly once, 1 otherwise.
 */
@Component
@ConditionalOnBooleanProperty("demo.enabled")
public class DemoRunner implements ApplicationRunner, ExitCodeGenerator {

	private static final Log logger = LogFactory.getLog(DemoRunner.class);

	private static final String NAMESPACE = "points";

	private final DemoProperties demo;

	private final InMemoryOrderBroker broker;

	private final MeterRegistry meters;

	private final JdbcTemplate jdbc;

	private volatile @Nullable DemoOrders orders;

	private volatile @Nullable DemoReport report;

	public DemoRunner(DemoProperties demo, InMemoryOrderBroker broker, MeterRegistry meters, JdbcTemplate jdbc) {
		this.demo = demo;
		this.broker = broker;
		this.meters = meters;
		this.jdbc = jdbc;
	}

	@Override
	public void run(ApplicationArguments args) throws InterruptedException {
		DemoOrders orders = DemoOrders.generate(this.demo);
		this.orders = orders;
		orders.sends().forEach(this.broker::send);
		this.broker.awaitIdle(this.demo.drainTimeout());
		DemoReport report = new DemoReport(this.broker.published(), this.broker.deliveries(), orders.unique().size(),
				orders.duplicates().size(), invocations("processed"), invocations("duplicate"),
				invocations("failed"), invocations("rejected"), this.broker.acknowledged(),
				this.broker.unacknowledged(), this.broker.deadLetters().size(), orders.expectedPoints(),
				count("SELECT COALESCE(SUM(balance), 0) FROM points_account"),
				count("SELECT COUNT(*) FROM points_ledger"));
		this.report = report;
		logger.info(System.lineSeparator() + report);
	}

	private long invocations(String outcome) {
		return this.meters.find(IdempotencyMeters.INVOCATIONS)
			.tag(IdempotencyMeters.NAMESPACE_TAG, NAMESPACE)
			.tag(IdempotencyMeters.OUTCOME_TAG, outcome)
			.timers()
			.stream()
			.mapToLong(Timer::count)
			.sum();
	}

	private long count(String sql) {
		Long value = this.jdbc.queryForObject(sql, Long.class);
		return (value != null) ? value : 0;
	}

	/** The orders of the last run, or {@code null} before the run. */
	public @Nullable DemoOrders orders() {
		return this.orders;
	}

	/** The report of the last run, or {@code null} before the run. */
	public @Nullable DemoReport report() {
		return this.report;
	}

	@Override
	public int getExitCode() {
		DemoReport report = this.report;
		return (report == null || report.creditedOncePerOrder()) ? 0 : 1;
	}

}

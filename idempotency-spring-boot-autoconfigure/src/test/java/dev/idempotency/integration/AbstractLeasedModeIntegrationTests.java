package dev.idempotency.integration;

import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.Set;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.CyclicBarrier;
import java.util.concurrent.ExecutorService;
import java.util.concurrent.Executors;
import java.util.concurrent.Future;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicInteger;

import javax.sql.DataSource;

import dev.idempotency.annotation.Idempotent;
import dev.idempotency.annotation.IdempotencyMode;
import dev.idempotency.core.IdempotencyInProgressException;
import dev.idempotency.core.IdempotencyKey;
import dev.idempotency.core.IdempotencyReconciler;
import dev.idempotency.core.IdempotencyReconciler.Verdict;
import dev.idempotency.core.IdempotencyStore;
import dev.idempotency.core.ParkedKey;
import dev.idempotency.core.ParkedKeys;
import dev.idempotency.metrics.IdempotencyMeters;
import dev.idempotency.support.LeaseReconciliationJob;
import io.micrometer.core.instrument.MeterRegistry;
import io.micrometer.core.instrument.simple.SimpleMeterRegistry;
import org.junit.jupiter.api.Test;

import org.springframework.boot.SpringBootConfiguration;
import org.springframework.boot.WebApplicationType;
import org.springframework.boot.autoconfigure.EnableAutoConfiguration;
import org.springframework.boot.autoconfigure.condition.ConditionalOnBooleanProperty;
import org.springframework.boot.builder.SpringApplicationBuilder;
import org.springframework.context.ConfigurableApplicationContext;
import org.springframework.context.annotation.Bean;
import org.springframework.core.io.ClassPathResource;
import org.springframework.jdbc.core.JdbcTemplate;
import org.springframework.jdbc.datasource.init.ResourceDatabasePopulator;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatExceptionOfType;

/**
 * Leased mode end to end on a real database, through Spring Boot's auto-configuration: an
 * {@code @Idempotent(mode = LEASED)} method whose side effect (a counter standing for a payment
 * provider) no transaction covers. Eight deliveries of one key at once run it once; a claim left
 * by a crashed run is taken over after its lease, or, with a reconciler, settled by it.
 */
abstract class AbstractLeasedModeIntegrationTests {

	private static final int THREADS = 8;

	private JdbcTemplate jdbc;

	/** Spring Boot properties that point the DataSource at the database under test. */
	protected abstract String[] dataSourceProperties();

	/** The platform of the schema scripts, e.g. {@code postgresql}. */
	protected abstract String platform();

	@Test
	void eightDeliveriesOfOneKeyAtOnceRunTheMethodOnce() throws Exception {
		try (ConfigurableApplicationContext context = start(false)) {
			Provider provider = context.getBean(Provider.class);
			for (int round = 0; round < 5; round++) {
				String payment = "race-" + round;
				List<String> outcomes = raceOn(context.getBean(Payments.class), payment);
				assertThat(provider.charges(payment)).as("charges of %s (outcomes %s)", payment, outcomes).isEqualTo(1);
				assertThat(outcomes).filteredOn("charged"::equals).hasSize(1);
			}
			assertThat(status("race-0")).isEqualTo("COMPLETED");
		}
	}

	@Test
	void withoutAReconcilerAClaimLeftByACrashedRunIsTakenOverAfterItsLease() throws Exception {
		try (ConfigurableApplicationContext context = start(false)) {
			IdempotencyStore leased = crashedClaim(context, "crashed-1");
			Payments payments = context.getBean(Payments.class);
			assertThatExceptionOfType(IdempotencyInProgressException.class).as("while the lease runs")
				.isThrownBy(() -> payments.charge("crashed-1"));
			Thread.sleep(1_200);
			assertThat(payments.charge("crashed-1")).isEqualTo("charged");
			assertThat(context.getBean(Provider.class).charges("crashed-1")).isEqualTo(1);
			assertThat(attempts("crashed-1")).isEqualTo(2);
			assertThat(payments.charge("crashed-1")).as("a later duplicate").isNull();
			assertThat(leased.name()).isEqualTo("jdbc");
		}
	}

	@Test
	void withAReconcilerEndedLeasesWaitForItsVerdict() throws Exception {
		try (ConfigurableApplicationContext context = start(true)) {
			Payments payments = context.getBean(Payments.class);
			Provider provider = context.getBean(Provider.class);
			crashedClaim(context, "settled");
			crashedClaim(context, "lost");
			crashedClaim(context, "unclear");
			provider.settled.add("settled");
			provider.unclear.add("unclear");
			Thread.sleep(1_200);
			assertThatExceptionOfType(IdempotencyInProgressException.class).as("ended lease, no verdict yet")
				.isThrownBy(() -> payments.charge("lost"));

			assertThat(context.getBean(LeaseReconciliationJob.class).runOnce()).isEqualTo(3);

			assertThat(payments.charge("settled")).as("completed by the reconciler: a duplicate").isNull();
			assertThat(payments.charge("lost")).as("released by the reconciler: runs").isEqualTo("charged");
			assertThat(payments.charge("unclear")).as("parked: skipped").isNull();
			assertThat(provider.charges("settled")).isZero();
			assertThat(provider.charges("lost")).isEqualTo(1);
			assertThat(provider.charges("unclear")).isZero();
			assertThat(count(context, "parked")).isEqualTo(1);

			ParkedKeys parked = context.getBean(ParkedKeys.class);
			assertThat(parked.parked("it-payments", 10)).extracting(ParkedKey::key)
				.containsExactly(new IdempotencyKey("it-payments", "unclear"));
			assertThat(parked.release(new IdempotencyKey("it-payments", "unclear"))).isTrue();
			assertThat(payments.charge("unclear")).as("released by a person: runs").isEqualTo("charged");
			assertThat(parked.parked(null, 10)).isEmpty();

			MeterRegistry meters = context.getBean(MeterRegistry.class);
			assertThat(meters.get(IdempotencyMeters.RECONCILER_VERDICTS).tag(IdempotencyMeters.VERDICT_TAG, "manual")
				.counter()
				.count()).isEqualTo(1);
		}
	}

	/** Claims a key in leased mode and leaves it, as a run that crashed after its claim would. */
	private IdempotencyStore crashedClaim(ConfigurableApplicationContext context, String payment) {
		IdempotencyStore leased = context.getBean(IdempotencyStore.class).leased();
		assertThat(leased).isNotNull();
		assertThat(leased.claim(new IdempotencyKey("it-payments", payment), Duration.ofSeconds(1), Duration.ofDays(1))
			.isClaimed()).isTrue();
		return leased;
	}

	private List<String> raceOn(Payments payments, String payment) throws Exception {
		ExecutorService executor = Executors.newFixedThreadPool(THREADS);
		CyclicBarrier start = new CyclicBarrier(THREADS);
		try {
			List<Future<String>> deliveries = new ArrayList<>();
			for (int i = 0; i < THREADS; i++) {
				deliveries.add(executor.submit(() -> {
					start.await(10, TimeUnit.SECONDS);
					try {
						return String.valueOf(payments.charge(payment));
					}
					catch (IdempotencyInProgressException ex) {
						return "in_progress";
					}
				}));
			}
			List<String> outcomes = new ArrayList<>();
			for (Future<String> delivery : deliveries) {
				outcomes.add(delivery.get(30, TimeUnit.SECONDS));
			}
			return outcomes;
		}
		finally {
			executor.shutdownNow();
		}
	}

	private ConfigurableApplicationContext start(boolean withReconciler) {
		List<String> properties = new ArrayList<>(List.of(dataSourceProperties()));
		properties.add("idempotency.jdbc.initialize-schema=never");
		// The table is created again below, once the context runs.
		properties.add("idempotency.jdbc.schema-check=off");
		properties.add("idempotency.jdbc.purge.enabled=false");
		properties.add("idempotency.reconciler.interval=1h");
		properties.add("it.reconciler=" + withReconciler);
		ConfigurableApplicationContext context = new SpringApplicationBuilder(PaymentsApplication.class)
			.web(WebApplicationType.NONE)
			.properties(properties.toArray(String[]::new))
			.run();
		this.jdbc = context.getBean(JdbcTemplate.class);
		// Dropped and created again: a table left by an earlier version would hide missing columns.
		new ResourceDatabasePopulator(
				new ClassPathResource("dev/idempotency/store/jdbc/schema-drop-" + platform() + ".sql"),
				new ClassPathResource("dev/idempotency/store/jdbc/schema-" + platform() + ".sql"))
			.execute(context.getBean(DataSource.class));
		return context;
	}

	private String status(String payment) {
		return this.jdbc.queryForObject(
				"SELECT status FROM idempotency_record WHERE namespace = 'it-payments' AND idempotency_key = ?",
				String.class, payment);
	}

	private int attempts(String payment) {
		return this.jdbc.queryForObject(
				"SELECT attempts FROM idempotency_record WHERE namespace = 'it-payments' AND idempotency_key = ?",
				Integer.class, payment);
	}

	private static long count(ConfigurableApplicationContext context, String outcome) {
		return context.getBean(MeterRegistry.class)
			.find(IdempotencyMeters.INVOCATIONS)
			.tag(IdempotencyMeters.OUTCOME_TAG, outcome)
			.timers()
			.stream()
			.mapToLong((timer) -> timer.count())
			.sum();
	}

	@SpringBootConfiguration
	@EnableAutoConfiguration
	static class PaymentsApplication {

		@Bean
		SimpleMeterRegistry meterRegistry() {
			return new SimpleMeterRegistry();
		}

		@Bean
		Provider provider() {
			return new Provider();
		}

		@Bean
		Payments payments(Provider provider) {
			return new Payments(provider);
		}

		@Bean
		@ConditionalOnBooleanProperty("it.reconciler")
		IdempotencyReconciler reconciler(Provider provider) {
			return (claim) -> provider.settled.contains(claim.key().value()) ? Verdict.COMPLETED
					: provider.unclear.contains(claim.key().value()) ? Verdict.MANUAL : Verdict.RETRY;
		}

	}

	/** Stands for a payment provider: counts charges per payment. */
	static class Provider {

		private final Map<String, AtomicInteger> charges = new ConcurrentHashMap<>();

		final Set<String> settled = ConcurrentHashMap.newKeySet();

		final Set<String> unclear = ConcurrentHashMap.newKeySet();

		void charge(String payment) {
			this.charges.computeIfAbsent(payment, (key) -> new AtomicInteger()).incrementAndGet();
		}

		int charges(String payment) {
			AtomicInteger count = this.charges.get(payment);
			return (count != null) ? count.get() : 0;
		}

	}

	static class Payments {

		private final Provider provider;

		Payments(Provider provider) {
			this.provider = provider;
		}

		@Idempotent(key = "#payment", namespace = "it-payments", mode = IdempotencyMode.LEASED, lease = "5s")
		public String charge(String payment) {
			this.provider.charge(payment);
			sleep(50);
			return "charged";
		}

		private static void sleep(long millis) {
			try {
				Thread.sleep(millis);
			}
			catch (InterruptedException ex) {
				Thread.currentThread().interrupt();
			}
		}

	}

}

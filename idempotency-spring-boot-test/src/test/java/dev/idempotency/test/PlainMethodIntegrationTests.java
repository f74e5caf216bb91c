package dev.idempotency.test;

import java.net.ConnectException;
import java.time.Duration;
import java.util.UUID;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.CountDownLatch;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicInteger;

import dev.idempotency.annotation.Idempotent;
import dev.idempotency.annotation.IdempotencyMode;
import dev.idempotency.core.IdempotencyInProgressException;
import dev.idempotency.core.IdempotencyStoreException;
import dev.idempotency.testsupport.TestDatabases;
import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.Test;

import org.springframework.beans.factory.annotation.Autowired;
import org.springframework.boot.SpringBootConfiguration;
import org.springframework.boot.autoconfigure.EnableAutoConfiguration;
import org.springframework.boot.test.context.SpringBootTest;
import org.springframework.context.annotation.Bean;
import org.springframework.jdbc.core.JdbcTemplate;
import org.springframework.test.context.DynamicPropertyRegistry;
import org.springframework.test.context.DynamicPropertySource;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatExceptionOfType;
import static org.awaitility.Awaitility.await;

/**
 * The kit around an {@code @Idempotent} bean method called directly, with the JDBC store on the local
 * PostgreSQL ({@code idempotency.test.postgres.url}): each fault, and the assertions over the meters.
 */
@SpringBootTest(classes = PlainMethodIntegrationTests.PlainApplication.class,
		properties = { "idempotency.jdbc.initialize-schema=always", "idempotency.jdbc.purge.enabled=false" })
@IdempotencyTest
class PlainMethodIntegrationTests {

	private static Ledger ledgerToDrop;

	@Autowired
	private IdempotencyTester idempotency;

	@Autowired
	private Points points;

	@Autowired
	private Ledger ledger;

	private final String order = "order-" + UUID.randomUUID();

	@DynamicPropertySource
	static void database(DynamicPropertyRegistry registry) {
		registry.add("spring.datasource.url", TestDatabases::postgresUrl);
		registry.add("spring.datasource.username", () -> "postgres");
	}

	@AfterAll
	static void dropLedger() {
		if (ledgerToDrop != null) {
			ledgerToDrop.drop();
		}
	}

	@Test
	void secondCallOfAKeyIsCountedAsADuplicateAndHasNoEffect() {
		this.idempotency.deliverTwice(() -> this.points.credit(this.order));
		assertThat(this.idempotency).processed(1).duplicates(1).failed(0);
		assertThat(this.ledger.credits(this.order)).isEqualTo(1);
	}

	@Test
	void countsDifferentFromTheMetersFailTheAssertion() {
		this.points.credit(this.order);
		assertThatExceptionOfType(AssertionError.class)
			.isThrownBy(() -> assertThat(this.idempotency).processed(2))
			.withMessageContaining("Expected 2 processed")
			.withMessageContaining("counted 1");
		assertThatExceptionOfType(AssertionError.class)
			.isThrownBy(() -> this.idempotency.await(Duration.ofMillis(200)).duplicates(1));
	}

	@Test
	void countsStartFromZeroAfterAReset() {
		this.points.credit(this.order);
		assertThat(this.idempotency).processed(1);
		this.idempotency.reset();
		assertThat(this.idempotency).processed(0).duplicates(0);
		this.points.credit(this.order);
		assertThat(this.idempotency).processed(0).duplicates(1);
	}

	@Test
	void countsNarrowToOneNamespace() {
		this.points.credit(this.order);
		assertThat(this.idempotency).namespace("points").processed(1);
		assertThat(this.idempotency).namespace("elsewhere").processed(0);
	}

	@Test
	void crashAfterCommitFailsTheCallAfterTheCommitAndTheRetryIsADuplicate() {
		this.idempotency.crashAfterCommit();
		assertThatExceptionOfType(SimulatedCrashException.class).isThrownBy(() -> this.points.credit(this.order));
		assertThat(this.ledger.credits(this.order)).as("committed before the crash").isEqualTo(1);
		this.points.credit(this.order);
		assertThat(this.ledger.credits(this.order)).isEqualTo(1);
		assertThat(this.idempotency).processed(1).duplicates(1);
	}

	@Test
	void storeOutageFailsCallsWithAnInfrastructureFailureUntilItRecovers() {
		this.idempotency.store().fail();
		assertThatExceptionOfType(IdempotencyStoreException.class).isThrownBy(() -> this.points.credit(this.order))
			.withRootCauseInstanceOf(ConnectException.class);
		assertThat(this.ledger.credits(this.order)).isZero();
		this.idempotency.store().recover();
		this.points.credit(this.order);
		assertThat(this.ledger.credits(this.order)).isEqualTo(1);
		assertThat(this.idempotency).processed(1).duplicates(0);
	}

	@Test
	void expiredLeaseOfAHungCallIsTakenOverByTheNextCall() throws Exception {
		CountDownLatch release = new CountDownLatch(1);
		this.points.holdNextLeasedCall(release);
		CompletableFuture<Void> hung = CompletableFuture.runAsync(() -> this.points.creditLeased(this.order));
		try {
			await().atMost(10, TimeUnit.SECONDS).until(() -> this.points.leasedCalls() == 1);
			assertThat(this.idempotency.store().leasedKeys()).hasSize(1);
			assertThatExceptionOfType(IdempotencyInProgressException.class)
				.isThrownBy(() -> this.points.creditLeased(this.order));
			assertThat(this.idempotency.expireLeases()).isEqualTo(1);
			this.points.creditLeased(this.order);
			assertThat(this.points.leasedCalls()).as("the method ran again").isEqualTo(2);
			assertThat(this.idempotency).namespace("points-leased").inProgress(1).processed(1);
		}
		finally {
			release.countDown();
			hung.handle((result, failure) -> null).get(10, TimeUnit.SECONDS);
		}
	}

	@SpringBootConfiguration
	@EnableAutoConfiguration
	static class PlainApplication {

		@Bean
		Ledger ledger(JdbcTemplate jdbc) {
			Ledger ledger = new Ledger(jdbc);
			ledgerToDrop = ledger;
			return ledger;
		}

		@Bean
		Points points(Ledger ledger) {
			return new Points(ledger);
		}

	}

	static class Points {

		private final Ledger ledger;

		private final AtomicInteger leasedCalls = new AtomicInteger();

		private volatile CountDownLatch hold;

		Points(Ledger ledger) {
			this.ledger = ledger;
		}

		@Idempotent(key = "#orderId", namespace = "points")
		public void credit(String orderId) {
			this.ledger.credit(orderId);
		}

		@Idempotent(key = "#orderId", namespace = "points-leased", mode = IdempotencyMode.LEASED)
		public void creditLeased(String orderId) {
			this.leasedCalls.incrementAndGet();
			CountDownLatch latch = this.hold;
			this.hold = null;
			if (latch != null) {
				try {
					latch.await(30, TimeUnit.SECONDS);
				}
				catch (InterruptedException ex) {
					Thread.currentThread().interrupt();
				}
			}
		}

		public void holdNextLeasedCall(CountDownLatch latch) {
			this.hold = latch;
		}

		public int leasedCalls() {
			return this.leasedCalls.get();
		}

	}

}

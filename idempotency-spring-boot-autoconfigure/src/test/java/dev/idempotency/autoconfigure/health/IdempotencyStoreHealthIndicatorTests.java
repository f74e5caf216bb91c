package dev.idempotency.autoconfigure.health;

import java.time.Clock;
import java.time.Duration;
import java.util.concurrent.CountDownLatch;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicInteger;

import com.zaxxer.hikari.HikariDataSource;
import dev.idempotency.core.IdempotencyStoreException;
import dev.idempotency.store.jdbc.JdbcIdempotencyDialect;
import dev.idempotency.store.jdbc.JdbcIdempotencyStore;
import dev.idempotency.support.InMemoryIdempotencyStore;
import dev.idempotency.testsupport.TestDatabases;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.Test;

import org.springframework.boot.health.contributor.Health;
import org.springframework.boot.health.contributor.Status;
import org.springframework.core.io.ClassPathResource;
import org.springframework.jdbc.core.JdbcTemplate;
import org.springframework.jdbc.datasource.init.ResourceDatabasePopulator;

import static org.assertj.core.api.Assertions.assertThat;

/**
 * {@link IdempotencyStoreHealthIndicator} on real stores (the JDBC store on H2, the in-memory store)
 * and on a store whose probe hangs.
 */
class IdempotencyStoreHealthIndicatorTests {

	private final HikariDataSource dataSource = TestDatabases.h2();

	@AfterEach
	void closeDataSource() {
		this.dataSource.close();
	}

	@Test
	void jdbcStoreWithItsTableIsUpWithNameAndResponseTime() {
		new ResourceDatabasePopulator(new ClassPathResource("dev/idempotency/store/jdbc/schema-h2.sql"))
			.execute(this.dataSource);
		Health health = new IdempotencyStoreHealthIndicator(jdbcStore(), Duration.ofSeconds(5)).health();
		assertThat(health.getStatus()).isEqualTo(Status.UP);
		assertThat(health.getDetails()).containsEntry("store", "jdbc").containsKey("responseTime");
		assertThat((Long) health.getDetails().get("responseTime")).isNotNegative().isLessThan(5000);
	}

	@Test
	void jdbcStoreWhoseTableIsMissingIsDownWithTheExceptionAndItsCause() {
		Health health = new IdempotencyStoreHealthIndicator(jdbcStore(), Duration.ofSeconds(5)).health();
		assertThat(health.getStatus()).isEqualTo(Status.DOWN);
		assertThat(health.getDetails()).containsEntry("store", "jdbc").doesNotContainKey("responseTime");
		assertThat(health.getDetails().get("error")).asString()
			.startsWith(IdempotencyStoreException.class.getName())
			.contains("idempotency_record");
		assertThat(health.getDetails().get("cause")).asString().containsIgnoringCase("not found");
	}

	@Test
	void storeWhoseProbeHangsIsDownAfterTheTimeoutAndIsNotProbedTwiceAtOnce() throws InterruptedException {
		CountDownLatch release = new CountDownLatch(1);
		AtomicInteger probes = new AtomicInteger();
		InMemoryIdempotencyStore hanging = new InMemoryIdempotencyStore() {

			@Override
			public void probe() {
				probes.incrementAndGet();
				try {
					release.await(10, TimeUnit.SECONDS);
				}
				catch (InterruptedException ex) {
					Thread.currentThread().interrupt();
				}
			}

		};
		IdempotencyStoreHealthIndicator indicator = new IdempotencyStoreHealthIndicator(hanging,
				Duration.ofMillis(200));
		long start = System.nanoTime();
		Health first = indicator.health();
		Health second = indicator.health();
		assertThat(Duration.ofNanos(System.nanoTime() - start)).isLessThan(Duration.ofSeconds(5));
		assertThat(first.getStatus()).isEqualTo(Status.DOWN);
		assertThat(first.getDetails().get("error")).asString().contains("200 ms");
		assertThat(second.getStatus()).isEqualTo(Status.DOWN);
		assertThat(probes).hasValue(1);
		release.countDown();
		Thread.sleep(100);
		assertThat(indicator.health().getStatus()).isEqualTo(Status.UP);
		assertThat(probes).hasValue(2);
	}

	@Test
	void probeFailureIsDownWithoutACauseWhenThereIsNone() {
		InMemoryIdempotencyStore failing = new InMemoryIdempotencyStore() {

			@Override
			public void probe() {
				throw new IllegalStateException("Store is closed");
			}

		};
		Health health = new IdempotencyStoreHealthIndicator(failing, Duration.ofSeconds(1)).health();
		assertThat(health.getStatus()).isEqualTo(Status.DOWN);
		assertThat(health.getDetails()).containsEntry("error",
				IllegalStateException.class.getName() + ": Store is closed")
			.doesNotContainKey("cause");
	}

	private JdbcIdempotencyStore jdbcStore() {
		return new JdbcIdempotencyStore(new JdbcTemplate(this.dataSource), JdbcIdempotencyDialect.GENERIC,
				"idempotency_record", Clock.systemUTC(), null);
	}

}

package dev.idempotency.integration;

import dev.idempotency.testsupport.TestDatabases;
import org.junit.jupiter.api.Test;

import org.springframework.context.ConfigurableApplicationContext;
import org.springframework.jdbc.core.JdbcTemplate;

import static org.assertj.core.api.Assertions.assertThat;

/**
 * Lock-then-double-check mode with the JDBC store on MariaDB, and the takeover deadlock it removes
 * (docs/jdbc-store.md): without the lock, four deliveries of a key whose record expired race on it
 * and InnoDB rolls some of them back.
 */
class RedissonLockConcurrencyMariaDbIntegrationTests extends AbstractRedissonLockConcurrencyIntegrationTests {

	@Override
	protected String[] dataSourceProperties() {
		return TestDatabases.mariaDbProperties();
	}

	@Test
	void withoutTheLockDeliveriesRacingOnExpiredRecordsDeadlock() throws Exception {
		try (ConfigurableApplicationContext context = start(false)) {
			JdbcTemplate jdbc = context.getBean(JdbcTemplate.class);
			int firstPass = deliver(context.getBean(Ledger.class));
			jdbc.update("UPDATE idempotency_record SET expires_at = created_at WHERE namespace = 'it-lock-ledger'");
			int secondPass = deliver(context.getBean(Ledger.class));
			System.out.printf("Without the lock on MariaDB: %d failed attempts on fresh keys, %d on expired ones%n",
					firstPass, secondPass);
			assertThat(secondPass).as("failed attempts (deadlocks) on expired records").isPositive();
			assertThat(jdbc.queryForList("SELECT order_id FROM it_lock_ledger GROUP BY order_id HAVING COUNT(*) <> 2",
					String.class))
				.as("still exactly once per pass: the store decides")
				.isEmpty();
		}
	}

}

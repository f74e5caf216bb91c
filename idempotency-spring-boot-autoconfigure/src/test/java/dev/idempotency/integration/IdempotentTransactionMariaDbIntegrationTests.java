package dev.idempotency.integration;

import java.util.Map;

import javax.sql.DataSource;

import dev.idempotency.annotation.Idempotent;
import dev.idempotency.testsupport.TestDatabases;
import org.junit.jupiter.api.Test;

import org.springframework.boot.SpringBootConfiguration;
import org.springframework.boot.autoconfigure.EnableAutoConfiguration;
import org.springframework.context.ConfigurableApplicationContext;
import org.springframework.context.annotation.Bean;
import org.springframework.context.annotation.Configuration;
import org.springframework.context.annotation.Import;
import org.springframework.jdbc.core.JdbcTemplate;
import org.springframework.transaction.annotation.Propagation;
import org.springframework.transaction.annotation.Transactional;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatIllegalStateException;

/**
 * The transaction boundaries of {@link IdempotentTransactionIntegrationTests} on MariaDB, with Spring
 * Boot's pool in auto-commit mode, where the transactions {@code @Idempotent} opens begin with
 * {@code START TRANSACTION} instead of switching auto-commit off and on; and what that path keeps:
 * one connection and one transaction for the claim, the method's JDBC work and its
 * {@code @Transactional} (joined and nested) calls, and connections that go back to the pool in
 * auto-commit mode with no transaction open.
 */
class IdempotentTransactionMariaDbIntegrationTests extends IdempotentTransactionIntegrationTests {

	@Override
	String[] dataSourceProperties() {
		return TestDatabases.mariaDbProperties();
	}

	@Test
	void transactionBeginsWithoutSwitchingAutoCommitAndEverythingJoinsIt() {
		try (ConfigurableApplicationContext context = start(ProbeApplication.class)) {
			Map<String, Object> state = context.getBean(Probe.class).handle("order-st-1", false);
			assertThat(state).containsEntry("autocommit", 1L).containsEntry("in_transaction", 1L);
			assertThat(state.get("inner")).as("@Transactional joins the connection").isEqualTo(state.get("connection"));
			assertThat(committedOrders("order-st-1%")).containsExactly("order-st-1", "order-st-1-kept");
			assertThat(committedRecords()).as("the claim, committed with the work").isEqualTo(1);
			assertPooledConnectionIsClean(context.getBean(DataSource.class));
		}
	}

	@Test
	void failureRollsBackTheClaimAndTheNestedWorkAndTheRedeliveryRunsOnce() {
		try (ConfigurableApplicationContext context = start(ProbeApplication.class)) {
			Probe probe = context.getBean(Probe.class);
			assertThatIllegalStateException().isThrownBy(() -> probe.handle("order-st-2", true));
			assertThat(committedOrders("order-st-2%")).isEmpty();
			assertPooledConnectionIsClean(context.getBean(DataSource.class));

			probe.handle("order-st-2", false);
			probe.handle("order-st-2", false);
			assertThat(committedOrders("order-st-2%")).containsExactly("order-st-2", "order-st-2-kept");
			assertThat(probe.runs()).as("the failed run and the redelivery; the duplicate skipped").isEqualTo(2);
		}
	}

	@Test
	void withStartTransactionOffTheTransactionSwitchesAutoCommit() {
		try (ConfigurableApplicationContext context = start(ProbeApplication.class,
				"idempotency.start-transaction=false")) {
			Map<String, Object> state = context.getBean(Probe.class).handle("order-st-3", false);
			assertThat(state).containsEntry("autocommit", 0L);
			assertThat(committedOrders("order-st-3%")).containsExactly("order-st-3", "order-st-3-kept");
		}
	}

	private static void assertPooledConnectionIsClean(DataSource dataSource) {
		Map<String, Object> state = new JdbcTemplate(dataSource)
			.queryForMap("SELECT @@autocommit AS autocommit, CAST(@@in_transaction AS SIGNED) AS in_transaction");
		assertThat(state).containsEntry("autocommit", 1L).containsEntry("in_transaction", 0L);
	}

	/** An @Idempotent method that reports the session's state and calls joined and nested transactions. */
	static class Probe {

		private final JdbcTemplate jdbc;

		private final Inner inner;

		private volatile int runs;

		Probe(JdbcTemplate jdbc, Inner inner) {
			this.jdbc = jdbc;
			this.inner = inner;
		}

		public int runs() {
			return this.runs;
		}

		@Idempotent(key = "#orderId", namespace = "it-tx-probe")
		public Map<String, Object> handle(String orderId, boolean fail) {
			this.runs++;
			this.jdbc.update("INSERT INTO it_effect (order_id) VALUES (?)", orderId);
			Map<String, Object> state = this.jdbc.queryForMap(
					"SELECT @@autocommit AS autocommit, CAST(@@in_transaction AS SIGNED) AS in_transaction, CONNECTION_ID() AS connection");
			state.put("inner", this.inner.connectionId());
			try {
				this.inner.writeNestedThenFail(orderId + "-dropped");
			}
			catch (IllegalStateException expected) {
				// rolled back to its savepoint; the rest of the transaction goes on
			}
			this.inner.writeNested(orderId + "-kept");
			if (fail) {
				throw new IllegalStateException("listener failed");
			}
			return state;
		}

	}

	static class Inner {

		private final JdbcTemplate jdbc;

		Inner(JdbcTemplate jdbc) {
			this.jdbc = jdbc;
		}

		@Transactional
		public Object connectionId() {
			return this.jdbc.queryForObject("SELECT CONNECTION_ID()", Object.class);
		}

		@Transactional(propagation = Propagation.NESTED)
		public void writeNestedThenFail(String orderId) {
			this.jdbc.update("INSERT INTO it_effect (order_id) VALUES (?)", orderId);
			throw new IllegalStateException("nested work failed");
		}

		@Transactional(propagation = Propagation.NESTED)
		public void writeNested(String orderId) {
			this.jdbc.update("INSERT INTO it_effect (order_id) VALUES (?)", orderId);
		}

	}

	@Configuration(proxyBeanMethods = false)
	static class Probes {

		@Bean
		Inner inner(JdbcTemplate jdbc) {
			return new Inner(jdbc);
		}

		@Bean
		Probe probe(JdbcTemplate jdbc, Inner inner) {
			return new Probe(jdbc, inner);
		}

	}

	@SpringBootConfiguration
	@EnableAutoConfiguration
	@Import(Probes.class)
	static class ProbeApplication {

	}

}

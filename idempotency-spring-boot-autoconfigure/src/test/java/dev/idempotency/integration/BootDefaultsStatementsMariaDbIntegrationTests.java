package dev.idempotency.integration;

import java.util.ArrayList;
import java.util.List;

import dev.idempotency.annotation.Idempotent;
import dev.idempotency.testsupport.TestDatabases;
import org.junit.jupiter.api.Test;

import org.springframework.boot.SpringBootConfiguration;
import org.springframework.boot.WebApplicationType;
import org.springframework.boot.autoconfigure.EnableAutoConfiguration;
import org.springframework.boot.builder.SpringApplicationBuilder;
import org.springframework.context.ConfigurableApplicationContext;
import org.springframework.context.annotation.Import;
import org.springframework.jdbc.core.JdbcTemplate;

import static org.assertj.core.api.Assertions.assertThat;

/**
 * What an {@code @Idempotent} message sends to MariaDB in an application that sets nothing but its
 * DataSource URL and user: Spring Boot's Hikari pool (auto-commit on), its auto-configured
 * {@code JdbcTransactionManager}, the server's isolation (issue 33, item 3). Counted with the
 * session's {@code Questions} status (the statements the server received from the connection), on a
 * pool of one connection so that the count and the message share the session.
 */
class BootDefaultsStatementsMariaDbIntegrationTests {

	@Test
	void newMessageSendsStartTransactionClaimWorkAndCommitOnly() {
		try (ConfigurableApplicationContext context = start()) {
			StatementCounter statements = new StatementCounter(context.getBean(JdbcTemplate.class));
			Listener listener = context.getBean(Listener.class);
			assertThat(statements.of(() -> listener.handle("order-new-1")))
				.as("START TRANSACTION, INSERT IGNORE, the method's INSERT, COMMIT: no set autocommit")
				.isEqualTo(4);
		}
	}

	@Test
	void duplicateSendsStartTransactionClaimExpiryReadAndCommit() {
		try (ConfigurableApplicationContext context = start()) {
			StatementCounter statements = new StatementCounter(context.getBean(JdbcTemplate.class));
			Listener listener = context.getBean(Listener.class);
			listener.handle("order-dup-1");
			assertThat(statements.of(() -> listener.handle("order-dup-1")))
				.as("START TRANSACTION, INSERT IGNORE (0 rows), the expiry read, COMMIT")
				.isEqualTo(4);
			assertThat(listener.runs()).as("the duplicate skipped").isEqualTo(1);
		}
	}

	@Test
	void switchingAutoCommitInsteadCostsTwoStatementsMore() {
		try (ConfigurableApplicationContext context = start("idempotency.start-transaction=false")) {
			StatementCounter statements = new StatementCounter(context.getBean(JdbcTemplate.class));
			Listener listener = context.getBean(Listener.class);
			assertThat(statements.of(() -> listener.handle("order-switch-1")))
				.as("set autocommit=0, INSERT IGNORE, the method's INSERT, COMMIT, set autocommit=1")
				.isEqualTo(5);
		}
	}

	private static ConfigurableApplicationContext start(String... extra) {
		List<String> properties = new ArrayList<>(List.of(TestDatabases.mariaDbProperties()));
		// One connection: the counter reads the session that ran the message. Nothing else of the pool
		// is set, so it keeps Spring Boot's defaults (auto-commit on, the server's isolation).
		properties.add("spring.datasource.hikari.maximum-pool-size=1");
		properties.add("idempotency.jdbc.initialize-schema=always");
		properties.add("idempotency.jdbc.purge.enabled=false");
		properties.addAll(List.of(extra));
		ConfigurableApplicationContext context = new SpringApplicationBuilder(App.class).web(WebApplicationType.NONE)
			.properties(properties.toArray(String[]::new))
			.run();
		JdbcTemplate jdbc = context.getBean(JdbcTemplate.class);
		jdbc.execute("CREATE TABLE IF NOT EXISTS it_statement_effect (order_id VARCHAR(64) NOT NULL)");
		jdbc.update("DELETE FROM it_statement_effect");
		jdbc.update("DELETE FROM idempotency_record WHERE namespace = 'it-statements'");
		return context;
	}

	/** The statements the pool's one session sent while an action ran, less the counter's own. */
	private static final class StatementCounter {

		private final JdbcTemplate jdbc;

		private final long ownStatements;

		StatementCounter(JdbcTemplate jdbc) {
			this.jdbc = jdbc;
			long first = questions();
			this.ownStatements = questions() - first;
		}

		long of(Runnable action) {
			long before = questions();
			action.run();
			return questions() - before - this.ownStatements;
		}

		private long questions() {
			return this.jdbc.queryForObject("SHOW SESSION STATUS LIKE 'Questions'", (rs, row) -> rs.getLong(2));
		}

	}

	@SpringBootConfiguration(proxyBeanMethods = false)
	@EnableAutoConfiguration
	@Import(Listener.class)
	static class App {

	}

	static class Listener {

		private final JdbcTemplate jdbc;

		private volatile int runs;

		Listener(JdbcTemplate jdbc) {
			this.jdbc = jdbc;
		}

		public int runs() {
			return this.runs;
		}

		@Idempotent(key = "#orderId", namespace = "it-statements")
		public void handle(String orderId) {
			this.runs++;
			this.jdbc.update("INSERT INTO it_statement_effect (order_id) VALUES (?)", orderId);
		}

	}

}

package dev.idempotency.store.jdbc.autoconfigure;

import dev.idempotency.autoconfigure.IdempotencyAutoConfiguration;
import dev.idempotency.autoconfigure.store.IdempotencyStoreAutoConfiguration;
import dev.idempotency.store.redis.autoconfigure.IdempotencyRedisStoreAutoConfiguration;
import dev.idempotency.testsupport.TestDatabases;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.extension.ExtendWith;

import org.springframework.boot.autoconfigure.AutoConfigurations;
import org.springframework.boot.jdbc.autoconfigure.DataSourceAutoConfiguration;
import org.springframework.boot.jdbc.autoconfigure.DataSourceTransactionManagerAutoConfiguration;
import org.springframework.boot.test.context.runner.ApplicationContextRunner;
import org.springframework.boot.test.system.CapturedOutput;
import org.springframework.boot.test.system.OutputCaptureExtension;

import static org.assertj.core.api.Assertions.assertThat;

/**
 * The start-up advisory of the JDBC store on MariaDB: what Spring Boot's pool defaults (auto-commit
 * on, the server's REPEATABLE READ) cost, logged once, and nothing once the pool is tuned.
 */
@ExtendWith(OutputCaptureExtension.class)
class MySqlConnectionAdvisoryMariaDbIntegrationTests {

	private static final String START_TRANSACTION = "@Idempotent transactions begin with START TRANSACTION";

	private static final String SWITCH = "@Idempotent transactions switch auto-commit off and back on";

	private static final String REPEATABLE_READ = "connections run at REPEATABLE READ";

	private final ApplicationContextRunner contextRunner = new ApplicationContextRunner()
		.withConfiguration(AutoConfigurations.of(DataSourceAutoConfiguration.class,
				DataSourceTransactionManagerAutoConfiguration.class, IdempotencyAutoConfiguration.class,
				IdempotencyStoreAutoConfiguration.class, IdempotencyJdbcStoreAutoConfiguration.class,
				IdempotencyRedisStoreAutoConfiguration.class))
		.withPropertyValues(TestDatabases.mariaDbProperties())
		.withPropertyValues("idempotency.store.type=jdbc", "idempotency.jdbc.initialize-schema=never",
				"idempotency.jdbc.purge.enabled=false");

	@Test
	void bootDefaultsAreReportedOnceWithTheTransactionsThatBeginWithStartTransaction(CapturedOutput output) {
		this.contextRunner.withPropertyValues("spring.datasource.hikari.transaction-isolation=TRANSACTION_REPEATABLE_READ")
			.run((context) -> {
				assertThat(context).hasNotFailed();
				assertThat(output).containsOnlyOnce(START_TRANSACTION)
					.contains("spring.datasource.hikari.auto-commit=false")
					.containsOnlyOnce(REPEATABLE_READ)
					.contains("spring.datasource.hikari.transaction-isolation=TRANSACTION_READ_COMMITTED")
					.doesNotContain(SWITCH);
			});
	}

	@Test
	void withStartTransactionOffTheSwitchIsReportedWithItsCostAndTheSettings(CapturedOutput output) {
		this.contextRunner.withPropertyValues("idempotency.start-transaction=false").run((context) -> {
			assertThat(context).hasNotFailed();
			assertThat(output).containsOnlyOnce(SWITCH)
				.contains("two round trips per message")
				.contains("idempotency.start-transaction=true")
				.contains("spring.datasource.hikari.auto-commit=false")
				.doesNotContain(START_TRANSACTION);
		});
	}

	@Test
	void aTunedPoolIsNotReported(CapturedOutput output) {
		this.contextRunner
			.withPropertyValues("spring.datasource.hikari.auto-commit=false",
					"spring.datasource.hikari.transaction-isolation=TRANSACTION_READ_COMMITTED")
			.run((context) -> {
				assertThat(context).hasNotFailed();
				assertThat(output).doesNotContain(START_TRANSACTION).doesNotContain(SWITCH).doesNotContain(REPEATABLE_READ);
			});
	}

}

package dev.idempotency.store.jdbc.autoconfigure;

import java.util.UUID;

import dev.idempotency.autoconfigure.IdempotencyAutoConfiguration;
import dev.idempotency.autoconfigure.store.IdempotencyStoreAutoConfiguration;
import dev.idempotency.core.IdempotencyReconciler;
import dev.idempotency.core.IdempotencyStore;
import dev.idempotency.core.ParkedKeys;
import dev.idempotency.store.jdbc.JdbcIdempotencyStore;
import dev.idempotency.store.redis.autoconfigure.IdempotencyRedisStoreAutoConfiguration;
import dev.idempotency.support.LeaseReconciliationJob;
import org.junit.jupiter.api.Test;

import org.springframework.boot.autoconfigure.AutoConfigurations;
import org.springframework.boot.autoconfigure.aop.AopAutoConfiguration;
import org.springframework.boot.jdbc.autoconfigure.DataSourceAutoConfiguration;
import org.springframework.boot.jdbc.autoconfigure.DataSourceInitializationAutoConfiguration;
import org.springframework.boot.jdbc.autoconfigure.DataSourceTransactionManagerAutoConfiguration;
import org.springframework.boot.test.context.runner.ApplicationContextRunner;
import org.springframework.boot.transaction.autoconfigure.TransactionAutoConfiguration;

import static org.assertj.core.api.Assertions.assertThat;

/**
 * The JDBC store's leased side in the auto-configuration: parked keys as a bean of their own, and
 * the reconciliation scan only with an application's reconciler.
 */
class LeasedJdbcAutoConfigurationTests {

	private final ApplicationContextRunner contextRunner = new ApplicationContextRunner()
		.withConfiguration(AutoConfigurations.of(AopAutoConfiguration.class, TransactionAutoConfiguration.class,
				DataSourceAutoConfiguration.class, DataSourceTransactionManagerAutoConfiguration.class,
				DataSourceInitializationAutoConfiguration.class, IdempotencyStoreAutoConfiguration.class,
				IdempotencyJdbcStoreAutoConfiguration.class, IdempotencyRedisStoreAutoConfiguration.class,
				IdempotencyAutoConfiguration.class))
		.withPropertyValues("spring.datasource.url=jdbc:h2:mem:" + UUID.randomUUID() + ";DB_CLOSE_DELAY=-1");

	@Test
	void theStoreHasALeasedSideAndParkedKeysAreABeanWithoutASecondStore() {
		this.contextRunner.run((context) -> {
			assertThat(context).hasNotFailed();
			assertThat(context.getBean(JdbcIdempotencyStore.class).leased()).isNotNull();
			assertThat(context).hasSingleBean(IdempotencyStore.class);
			assertThat(context).hasSingleBean(ParkedKeys.class);
			assertThat(context).doesNotHaveBean(LeaseReconciliationJob.class);
		});
	}

	@Test
	void aReconcilerBeanStartsTheScan() {
		this.contextRunner.withBean(IdempotencyReconciler.class, () -> (claim) -> IdempotencyReconciler.Verdict.RETRY)
			.run((context) -> {
				assertThat(context).hasSingleBean(LeaseReconciliationJob.class);
				assertThat(context.getBean(LeaseReconciliationJob.class).isRunning()).isTrue();
			});
	}

	@Test
	void theScanCoversEveryNamespaceUnlessNamespacesAreConfigured() {
		this.contextRunner.withBean(IdempotencyReconciler.class, () -> (claim) -> IdempotencyReconciler.Verdict.RETRY)
			.run((context) -> assertThat(context.getBean(LeaseReconciliationJob.class).getSettings().namespaces())
				.isEmpty());
		this.contextRunner.withBean(IdempotencyReconciler.class, () -> (claim) -> IdempotencyReconciler.Verdict.RETRY)
			.withPropertyValues("idempotency.reconciler.namespaces=billing:payments,billing:refunds")
			.run((context) -> assertThat(context.getBean(LeaseReconciliationJob.class).getSettings().namespaces())
				.containsExactly("billing:payments", "billing:refunds"));
	}

	@Test
	void theScanCanBeSwitchedOff() {
		this.contextRunner.withBean(IdempotencyReconciler.class, () -> (claim) -> IdempotencyReconciler.Verdict.RETRY)
			.withPropertyValues("idempotency.reconciler.enabled=false")
			.run((context) -> assertThat(context).doesNotHaveBean(LeaseReconciliationJob.class));
	}

}

package dev.idempotency.store.jdbc.autoconfigure;

import java.time.Clock;

import javax.sql.DataSource;

import dev.idempotency.autoconfigure.IdempotencyProperties;
import dev.idempotency.autoconfigure.IdempotencyPurgeProperties;
import dev.idempotency.autoconfigure.store.IdempotencyStoreAutoConfiguration;
import dev.idempotency.autoconfigure.store.StoreTypeCondition;
import dev.idempotency.core.IdempotencyListener;
import dev.idempotency.core.IdempotencyReconciler;
import dev.idempotency.core.IdempotencyStore;
import dev.idempotency.core.ParkedKeys;
import dev.idempotency.store.jdbc.JdbcIdempotencyDialect;
import dev.idempotency.store.jdbc.JdbcIdempotencyPurger;
import dev.idempotency.store.jdbc.JdbcIdempotencyStore;
import dev.idempotency.store.jdbc.JdbcLeasedIdempotencyStore;
import dev.idempotency.support.IdempotencyPurgeJob;
import dev.idempotency.support.IdempotencyTransactionManagerResolver;
import dev.idempotency.support.LeaseReconciliationJob;
import dev.idempotency.support.ParkedKeysView;

import org.springframework.beans.factory.ObjectProvider;
import org.springframework.boot.autoconfigure.AutoConfiguration;
import org.springframework.boot.autoconfigure.condition.ConditionalOnBean;
import org.springframework.boot.autoconfigure.condition.ConditionalOnBooleanProperty;
import org.springframework.boot.autoconfigure.condition.ConditionalOnClass;
import org.springframework.boot.autoconfigure.condition.ConditionalOnMissingBean;
import org.springframework.boot.autoconfigure.condition.ConditionalOnSingleCandidate;
import org.springframework.boot.context.properties.EnableConfigurationProperties;
import org.springframework.boot.jdbc.init.DatabaseInitializationProperties;
import org.springframework.context.annotation.Bean;
import org.springframework.context.annotation.Conditional;
import org.springframework.jdbc.core.JdbcTemplate;
import org.springframework.util.Assert;
import org.springframework.util.StringUtils;
import org.springframework.util.function.SingletonSupplier;

/**
 * Auto-configuration of the JDBC store on the application's single {@code DataSource}, its schema
 * initializer, its purge job and the reconciliation scan of its leased claims: when
 * {@code idempotency.store.type} is {@code jdbc} or unset and the application has no store of its own.
 * Runs before {@link IdempotencyStoreAutoConfiguration}, which falls back to the in-memory store.
 *
 * @since 0.2.0
 */
@AutoConfiguration(before = IdempotencyStoreAutoConfiguration.class,
		afterName = { "org.springframework.boot.jdbc.autoconfigure.DataSourceAutoConfiguration",
				"org.springframework.boot.jdbc.autoconfigure.DataSourceTransactionManagerAutoConfiguration",
				"org.springframework.boot.flyway.autoconfigure.FlywayAutoConfiguration",
				"org.springframework.boot.liquibase.autoconfigure.LiquibaseAutoConfiguration" })
@ConditionalOnBooleanProperty(name = "idempotency.enabled", matchIfMissing = true)
@ConditionalOnClass({ JdbcTemplate.class, DatabaseInitializationProperties.class })
@ConditionalOnSingleCandidate(DataSource.class)
@ConditionalOnMissingBean(IdempotencyStore.class)
@Conditional(StoreTypeCondition.Jdbc.class)
@EnableConfigurationProperties({ IdempotencyJdbcProperties.class, IdempotencyReconcilerProperties.class })
public final class IdempotencyJdbcStoreAutoConfiguration {

	/**
	 * The transactional store, with its leased side on the same table. While the application has an
	 * {@code IdempotencyReconciler}, a delivery never takes over an ended lease of a namespace the
	 * reconciler's scan covers (all, unless {@code idempotency.reconciler.namespaces} names some):
	 * the reconciler decides.
	 */
	@Bean
	JdbcIdempotencyStore idempotencyStore(DataSource dataSource, IdempotencyJdbcProperties properties,
			IdempotencyReconcilerProperties reconcilerProperties, ObjectProvider<IdempotencyReconciler> reconcilers) {
		JdbcIdempotencyDialect dialect = dialect(dataSource, properties);
		boolean reconciled = reconcilers.getIfAvailable() != null;
		JdbcLeasedIdempotencyStore leased = new JdbcLeasedIdempotencyStore(dataSource, dialect,
				properties.getTableName(), Clock.systemUTC(), !reconciled, reconcilerProperties.getNamespaces());
		return new JdbcIdempotencyStore(new JdbcTemplate(dataSource), dialect, properties.getTableName(),
				Clock.systemUTC(), leased);
	}

	@Bean
	JdbcSchemaVerifier idempotencyJdbcSchemaVerifier(JdbcIdempotencyStore store, IdempotencyJdbcProperties properties) {
		return new JdbcSchemaVerifier(store, properties.getSchemaCheck());
	}

	@Bean
	MySqlConnectionAdvisory idempotencyMySqlConnectionAdvisory(JdbcIdempotencyStore store,
			ObjectProvider<IdempotencyTransactionManagerResolver> transactionManagers) {
		return new MySqlConnectionAdvisory(store, transactionManagers);
	}

	@Bean
	@ConditionalOnMissingBean(ParkedKeys.class)
	ParkedKeysView idempotencyParkedKeys(JdbcIdempotencyStore store) {
		return new ParkedKeysView(leasedSide(store));
	}

	@Bean
	@ConditionalOnBean(IdempotencyReconciler.class)
	@ConditionalOnBooleanProperty(name = "idempotency.reconciler.enabled", matchIfMissing = true)
	LeaseReconciliationJob idempotencyReconciliationJob(JdbcIdempotencyStore store, IdempotencyReconciler reconciler,
			IdempotencyReconcilerProperties properties, IdempotencyProperties idempotency,
			ObjectProvider<IdempotencyListener> listeners) {
		LeaseReconciliationJob.Settings settings = new LeaseReconciliationJob.Settings(properties.getInterval(),
				properties.getBatchSize(), properties.getHold(), idempotency.getRetention(),
				properties.getNamespaces());
		return new LeaseReconciliationJob(store.name(), leasedSide(store), reconciler, settings,
				SingletonSupplier.of(() -> listeners.orderedStream().toList()));
	}

	private static JdbcLeasedIdempotencyStore leasedSide(JdbcIdempotencyStore store) {
		JdbcLeasedIdempotencyStore leased = store.leased();
		Assert.state(leased != null, "The JDBC store has no leased side");
		return leased;
	}

	@Bean
	@ConditionalOnMissingBean
	@Conditional(OnIdempotencyJdbcDatabaseInitializationCondition.class)
	IdempotencyJdbcDataSourceScriptDatabaseInitializer idempotencyJdbcDataSourceScriptDatabaseInitializer(
			DataSource dataSource, IdempotencyJdbcProperties properties) {
		return new IdempotencyJdbcDataSourceScriptDatabaseInitializer(dataSource, properties);
	}

	@Bean
	@ConditionalOnBooleanProperty(name = "idempotency.jdbc.purge.enabled", matchIfMissing = true)
	IdempotencyPurgeJob idempotencyPurgeJob(JdbcIdempotencyStore store, DataSource dataSource,
			IdempotencyJdbcProperties properties, ObjectProvider<IdempotencyListener> listeners) {
		IdempotencyPurgeProperties purge = properties.getPurge();
		JdbcIdempotencyPurger purger = new JdbcIdempotencyPurger(new JdbcTemplate(dataSource), store.getDialect(),
				store.getTableName(), Clock.systemUTC(), purge.getBatchSize(), purge.getMaxBatchesPerRun());
		return new IdempotencyPurgeJob(store.name(), purger::purgeExpired, purge.getInterval(),
				SingletonSupplier.of(() -> listeners.orderedStream().toList()));
	}

	private static JdbcIdempotencyDialect dialect(DataSource dataSource, IdempotencyJdbcProperties properties) {
		String platform = properties.getPlatform();
		if (StringUtils.hasText(platform) && !"all".equals(platform)) {
			return JdbcIdempotencyDialect.forPlatform(platform);
		}
		return JdbcIdempotencyDialect.detect(dataSource);
	}

}

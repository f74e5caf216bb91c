package dev.idempotency.autoconfigure.store;

import java.time.Clock;

import javax.sql.DataSource;

import dev.idempotency.autoconfigure.IdempotencyPurgeProperties;
import dev.idempotency.core.IdempotencyListener;
import dev.idempotency.core.IdempotencyStore;
import dev.idempotency.store.jdbc.JdbcIdempotencyDialect;
import dev.idempotency.store.jdbc.JdbcIdempotencyPurger;
import dev.idempotency.store.jdbc.JdbcIdempotencyStore;
import dev.idempotency.support.IdempotencyPurgeJob;

import org.springframework.beans.factory.ObjectProvider;
import org.springframework.boot.autoconfigure.condition.ConditionalOnBooleanProperty;
import org.springframework.boot.autoconfigure.condition.ConditionalOnClass;
import org.springframework.boot.autoconfigure.condition.ConditionalOnMissingBean;
import org.springframework.boot.autoconfigure.condition.ConditionalOnSingleCandidate;
import org.springframework.boot.context.properties.EnableConfigurationProperties;
import org.springframework.boot.jdbc.init.DatabaseInitializationProperties;
import org.springframework.context.annotation.Bean;
import org.springframework.context.annotation.Conditional;
import org.springframework.context.annotation.Configuration;
import org.springframework.jdbc.core.JdbcTemplate;
import org.springframework.util.StringUtils;

/**
 * The JDBC store on the application's single {@code DataSource}, its schema initializer and its
 * purge job.
 */
@Configuration(proxyBeanMethods = false)
@ConditionalOnClass({ JdbcTemplate.class, DatabaseInitializationProperties.class })
@ConditionalOnSingleCandidate(DataSource.class)
@ConditionalOnMissingBean(IdempotencyStore.class)
@Conditional(StoreTypeCondition.Jdbc.class)
@EnableConfigurationProperties(IdempotencyJdbcProperties.class)
class JdbcStoreConfiguration {

	@Bean
	JdbcIdempotencyStore idempotencyStore(DataSource dataSource, IdempotencyJdbcProperties properties) {
		return new JdbcIdempotencyStore(new JdbcTemplate(dataSource), dialect(dataSource, properties),
				properties.getTableName(), Clock.systemUTC());
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
				() -> listeners.orderedStream().toList());
	}

	private static JdbcIdempotencyDialect dialect(DataSource dataSource, IdempotencyJdbcProperties properties) {
		String platform = properties.getPlatform();
		if (StringUtils.hasText(platform) && !"all".equals(platform)) {
			return JdbcIdempotencyDialect.forPlatform(platform);
		}
		return JdbcIdempotencyDialect.detect(dataSource);
	}

}

package dev.idempotency.test;

import dev.idempotency.annotation.Idempotent;
import dev.idempotency.autoconfigure.IdempotencyAutoConfiguration;
import dev.idempotency.autoconfigure.IdempotencyProperties;
import dev.idempotency.metrics.autoconfigure.IdempotencyMetricsAutoConfiguration;
import io.micrometer.core.instrument.MeterRegistry;
import io.micrometer.core.instrument.simple.SimpleMeterRegistry;

import org.springframework.aop.Advisor;
import org.springframework.aop.support.DefaultPointcutAdvisor;
import org.springframework.aop.support.annotation.AnnotationMatchingPointcut;
import org.springframework.beans.factory.ObjectProvider;
import org.springframework.beans.factory.config.BeanDefinition;
import org.springframework.boot.autoconfigure.AutoConfiguration;
import org.springframework.boot.autoconfigure.condition.ConditionalOnBooleanProperty;
import org.springframework.boot.autoconfigure.condition.ConditionalOnMissingBean;
import org.springframework.boot.context.properties.bind.Binder;
import org.springframework.context.annotation.Bean;
import org.springframework.context.annotation.Role;
import org.springframework.core.env.Environment;

/**
 * The test kit's beans, in a test's application context: the {@link IdempotencyTester}, the wrapper
 * of the store beans ({@link StoreFaults}), the advisor that loses acknowledgements around
 * {@code @Idempotent} methods, just outside the engine's, and a {@link SimpleMeterRegistry} when the
 * application has no {@link MeterRegistry}, so that the engine's meters exist to be read. Imported by
 * {@link IdempotencyTest} only: the kit's jar registers nothing for the other tests on its class path.
 *
 * @since 0.2.0
 */
@AutoConfiguration(before = { IdempotencyAutoConfiguration.class, IdempotencyMetricsAutoConfiguration.class },
		afterName = { "org.springframework.boot.micrometer.metrics.autoconfigure.MetricsAutoConfiguration",
				"org.springframework.boot.micrometer.metrics.autoconfigure.CompositeMeterRegistryAutoConfiguration",
				"org.springframework.boot.micrometer.metrics.autoconfigure.export.simple.SimpleMetricsExportAutoConfiguration" })
@ConditionalOnBooleanProperty(name = "idempotency.enabled", matchIfMissing = true)
public final class IdempotencyTestAutoConfiguration {

	@Bean
	@ConditionalOnMissingBean(MeterRegistry.class)
	SimpleMeterRegistry idempotencyTestMeterRegistry() {
		return new SimpleMeterRegistry();
	}

	@Bean
	@ConditionalOnMissingBean
	IdempotencyTester idempotencyTester(MeterRegistry registry, CrashAfterCommit idempotencyCrashAfterCommit,
			StoreFaults idempotencyStoreFaults) {
		return new IdempotencyTester(registry, idempotencyCrashAfterCommit, idempotencyStoreFaults);
	}

	@Bean
	@Role(BeanDefinition.ROLE_INFRASTRUCTURE)
	static CrashAfterCommit idempotencyCrashAfterCommit() {
		return new CrashAfterCommit();
	}

	@Bean
	@Role(BeanDefinition.ROLE_INFRASTRUCTURE)
	static StoreFaults idempotencyStoreFaults() {
		return new StoreFaults();
	}

	@Bean
	static StoreFaultProxies idempotencyStoreFaultProxies(ObjectProvider<StoreFaults> faults) {
		return new StoreFaultProxies(faults);
	}

	@Bean
	@Role(BeanDefinition.ROLE_INFRASTRUCTURE)
	static Advisor idempotencyCrashAfterCommitAdvisor(Environment environment,
			ObjectProvider<CrashAfterCommit> crashes) {
		// Bound by hand, as the engine binds its own order: advisors are created before
		// configuration properties beans. One step outside the engine's advisor.
		int order = Binder.get(environment)
			.bindOrCreate("idempotency", IdempotencyProperties.class)
			.getAdvisorOrder();
		DefaultPointcutAdvisor advisor = new DefaultPointcutAdvisor(
				new AnnotationMatchingPointcut(null, Idempotent.class, true), crashes.getObject());
		advisor.setOrder(order - 1);
		return advisor;
	}

}

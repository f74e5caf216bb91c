package dev.idempotency.observation.autoconfigure;

import dev.idempotency.core.InvocationObserver;
import dev.idempotency.core.TraceContextCapture;
import dev.idempotency.observation.DefaultIdempotencyObservationConvention;
import dev.idempotency.observation.IdempotencyObservationConvention;
import dev.idempotency.observation.MicrometerInvocationObserver;
import dev.idempotency.observation.MicrometerTraceContextCapture;
import io.micrometer.observation.ObservationRegistry;
import io.micrometer.tracing.Tracer;
import io.micrometer.tracing.propagation.Propagator;

import org.springframework.beans.factory.ObjectProvider;
import org.springframework.boot.autoconfigure.AutoConfiguration;
import org.springframework.boot.autoconfigure.condition.ConditionalOnBooleanProperty;
import org.springframework.boot.autoconfigure.condition.ConditionalOnClass;
import org.springframework.boot.autoconfigure.condition.ConditionalOnMissingBean;
import org.springframework.boot.context.properties.EnableConfigurationProperties;
import org.springframework.context.annotation.Bean;
import org.springframework.context.annotation.Configuration;

/**
 * Observes each {@code @Idempotent} call in the application's {@link ObservationRegistry} (nothing
 * is created while the registry has no handlers), and, with Micrometer Tracing, lets the outbox
 * store the publisher's trace context. The registry, tracer and propagator are looked up when the
 * beans are created, so no ordering against Boot's observation and tracing auto-configurations is
 * needed; without them both beans do nothing.
 *
 * @since 0.2.0
 */
@AutoConfiguration(
		afterName = "org.springframework.boot.micrometer.observation.autoconfigure.ObservationAutoConfiguration")
@ConditionalOnClass(ObservationRegistry.class)
@ConditionalOnBooleanProperty(name = "idempotency.observation.enabled", matchIfMissing = true)
@EnableConfigurationProperties(IdempotencyObservationProperties.class)
public final class IdempotencyObservationAutoConfiguration {

	@Bean
	@ConditionalOnBooleanProperty(name = "idempotency.enabled", matchIfMissing = true)
	@ConditionalOnMissingBean(InvocationObserver.class)
	MicrometerInvocationObserver idempotencyInvocationObserver(ObjectProvider<ObservationRegistry> registry,
			ObjectProvider<IdempotencyObservationConvention> convention, IdempotencyObservationProperties properties) {
		return new MicrometerInvocationObserver(registry.getIfUnique(() -> ObservationRegistry.NOOP),
				convention.getIfUnique(), new DefaultIdempotencyObservationConvention(properties.isKeyTag()));
	}

	@Configuration(proxyBeanMethods = false)
	@ConditionalOnClass(Tracer.class)
	static class TraceContextCaptureConfiguration {

		@Bean
		@ConditionalOnMissingBean(TraceContextCapture.class)
		MicrometerTraceContextCapture idempotencyTraceContextCapture(ObjectProvider<Tracer> tracer,
				ObjectProvider<Propagator> propagator) {
			return new MicrometerTraceContextCapture(tracer.getIfUnique(), propagator.getIfUnique());
		}

	}

}

package dev.idempotency.http.autoconfigure;

import dev.idempotency.http.HttpMessageTransport;

import org.springframework.boot.autoconfigure.AutoConfiguration;
import org.springframework.boot.autoconfigure.condition.ConditionalOnBooleanProperty;
import org.springframework.boot.autoconfigure.condition.ConditionalOnClass;
import org.springframework.boot.autoconfigure.condition.ConditionalOnMissingBean;
import org.springframework.context.annotation.Bean;
import org.springframework.web.servlet.DispatcherServlet;

/**
 * Spring MVC as a message transport of the engine, whenever it is on the class path: how
 * {@code @Idempotent} handler methods are named, fingerprinted and answered. Apart from
 * {@link IdempotencyHttpAutoConfiguration} because it holds in any application context, web or not
 * (the engine reads a handler method's defaults wherever the method is called). With
 * {@code idempotency.http.enabled=false} handler methods are plain {@code @Idempotent} methods: no
 * request fingerprint, no stored response by default.
 *
 * @since 0.2.0
 */
@AutoConfiguration
@ConditionalOnClass(DispatcherServlet.class)
@ConditionalOnBooleanProperty(name = "idempotency.http.enabled", matchIfMissing = true)
public final class IdempotencyHttpTransportAutoConfiguration {

	@Bean
	@ConditionalOnMissingBean
	HttpMessageTransport idempotencyHttpTransport() {
		return new HttpMessageTransport();
	}

}

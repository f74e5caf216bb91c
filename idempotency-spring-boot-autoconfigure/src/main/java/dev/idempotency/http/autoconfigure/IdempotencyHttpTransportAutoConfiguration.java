package dev.idempotency.http.autoconfigure;

import dev.idempotency.http.HttpMessageTransport;

import org.springframework.boot.autoconfigure.AutoConfiguration;
import org.springframework.boot.autoconfigure.condition.ConditionalOnClass;
import org.springframework.boot.autoconfigure.condition.ConditionalOnMissingBean;
import org.springframework.context.annotation.Bean;
import org.springframework.web.servlet.DispatcherServlet;

/**
 * Spring MVC as a message transport of the engine, whenever it is on the class path: how
 * {@code @Idempotent} handler methods are named, fingerprinted and answered. Apart from
 * {@link IdempotencyHttpAutoConfiguration} because no switch turns it off: a handler's default
 * namespace must not change with {@code idempotency.http.enabled}.
 *
 * @since 0.2.0
 */
@AutoConfiguration
@ConditionalOnClass(DispatcherServlet.class)
public final class IdempotencyHttpTransportAutoConfiguration {

	@Bean
	@ConditionalOnMissingBean
	HttpMessageTransport idempotencyHttpTransport() {
		return new HttpMessageTransport();
	}

}

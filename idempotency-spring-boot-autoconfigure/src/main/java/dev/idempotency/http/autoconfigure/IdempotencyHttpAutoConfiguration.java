package dev.idempotency.http.autoconfigure;

import dev.idempotency.autoconfigure.IdempotencyAutoConfiguration;
import dev.idempotency.autoconfigure.IdempotencyProperties;
import dev.idempotency.http.HandlerResponseInterceptor;
import dev.idempotency.http.HttpIdempotencyScope;
import dev.idempotency.http.HttpIdempotencySettings;
import dev.idempotency.http.IdempotencyProblemHandler;
import dev.idempotency.http.IdempotentHandlerAdvisor;
import dev.idempotency.http.IdempotentRequestInterceptor;
import dev.idempotency.http.RequestBodyCapture;
import dev.idempotency.http.SecurityContextScope;
import dev.idempotency.http.StoredResponseModule;
import tools.jackson.databind.json.JsonMapper;

import org.springframework.beans.factory.ObjectProvider;
import org.springframework.beans.factory.config.BeanDefinition;
import org.springframework.boot.autoconfigure.AutoConfiguration;
import org.springframework.boot.autoconfigure.condition.ConditionalOnBooleanProperty;
import org.springframework.boot.autoconfigure.condition.ConditionalOnClass;
import org.springframework.boot.autoconfigure.condition.ConditionalOnMissingBean;
import org.springframework.boot.autoconfigure.condition.ConditionalOnMissingClass;
import org.springframework.boot.autoconfigure.condition.ConditionalOnWebApplication;
import org.springframework.boot.context.properties.EnableConfigurationProperties;
import org.springframework.boot.context.properties.bind.Binder;
import org.springframework.context.annotation.Bean;
import org.springframework.context.annotation.Configuration;
import org.springframework.context.annotation.Role;
import org.springframework.core.env.Environment;
import org.springframework.security.core.context.SecurityContextHolder;
import org.springframework.util.function.SingletonSupplier;
import org.springframework.web.servlet.DispatcherServlet;

/**
 * The HTTP transport ({@code idempotency.http.*}): {@code @Idempotent} handler methods of a servlet
 * web application read their key from the {@code Idempotency-Key} header, scoped to the caller
 * ({@link HttpIdempotencyScope}: Spring Security's principal when it is on the class path, else the
 * container's); the request is fingerprinted ({@link RequestBodyCapture}), the response stored and
 * replayed ({@link StoredResponseModule}), and refusals answered with problem details
 * ({@link IdempotencyProblemHandler}). Two advisors around the engine's: one outside it
 * ({@link IdempotentRequestInterceptor}), one inside ({@link HandlerResponseInterceptor}).
 *
 * @since 0.2.0
 */
@AutoConfiguration(after = IdempotencyAutoConfiguration.class)
@ConditionalOnWebApplication(type = ConditionalOnWebApplication.Type.SERVLET)
@ConditionalOnClass({ DispatcherServlet.class, JsonMapper.class })
@ConditionalOnBooleanProperty(name = "idempotency.enabled", matchIfMissing = true)
@ConditionalOnBooleanProperty(name = "idempotency.http.enabled", matchIfMissing = true)
@EnableConfigurationProperties(IdempotencyHttpProperties.class)
public final class IdempotencyHttpAutoConfiguration {

	@Bean
	@Role(BeanDefinition.ROLE_INFRASTRUCTURE)
	static IdempotentHandlerAdvisor idempotentRequestAdvisor(ObjectProvider<HttpIdempotencyScope> scope,
			Environment environment) {
		// Static and bound by hand, as the engine's advisor: advisors are created early.
		SingletonSupplier<HttpIdempotencyScope> lazyScope = SingletonSupplier.of(scope::getObject);
		return new IdempotentHandlerAdvisor(new IdempotentRequestInterceptor(settings(environment),
				(request) -> lazyScope.obtain().scopeOf(request)), engineOrder(environment) - 1);
	}

	@Bean
	@Role(BeanDefinition.ROLE_INFRASTRUCTURE)
	static IdempotentHandlerAdvisor idempotentResponseAdvisor(Environment environment) {
		return new IdempotentHandlerAdvisor(new HandlerResponseInterceptor(settings(environment)),
				engineOrder(environment) + 1);
	}

	@Bean
	@ConditionalOnMissingBean
	RequestBodyCapture idempotencyRequestBodyCapture(IdempotencyHttpProperties properties) {
		return new RequestBodyCapture(properties.toSettings());
	}

	@Bean
	@ConditionalOnMissingBean
	IdempotencyProblemHandler idempotencyProblemHandler() {
		return new IdempotencyProblemHandler();
	}

	@Bean
	@ConditionalOnMissingBean
	StoredResponseModule idempotencyStoredResponseModule(IdempotencyHttpProperties properties) {
		return new StoredResponseModule(properties.toSettings());
	}

	private static HttpIdempotencySettings settings(Environment environment) {
		return Binder.get(environment)
			.bindOrCreate("idempotency.http", IdempotencyHttpProperties.class)
			.toSettings();
	}

	private static int engineOrder(Environment environment) {
		return Binder.get(environment).bindOrCreate("idempotency", IdempotencyProperties.class).getAdvisorOrder();
	}

	@Configuration(proxyBeanMethods = false)
	@ConditionalOnClass(SecurityContextHolder.class)
	static class SecurityScopeConfiguration {

		@Bean
		@ConditionalOnMissingBean
		HttpIdempotencyScope idempotencyHttpScope() {
			return new SecurityContextScope();
		}

	}

	@Configuration(proxyBeanMethods = false)
	@ConditionalOnMissingClass("org.springframework.security.core.context.SecurityContextHolder")
	static class PrincipalScopeConfiguration {

		@Bean
		@ConditionalOnMissingBean
		HttpIdempotencyScope idempotencyHttpScope() {
			return HttpIdempotencyScope.principal();
		}

	}

}

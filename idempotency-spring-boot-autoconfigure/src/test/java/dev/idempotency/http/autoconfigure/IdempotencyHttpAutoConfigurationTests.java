package dev.idempotency.http.autoconfigure;

import java.time.Duration;
import java.util.List;

import dev.idempotency.autoconfigure.IdempotencyAutoConfiguration;
import dev.idempotency.autoconfigure.IdempotencyProperties;
import dev.idempotency.autoconfigure.store.IdempotencyStoreAutoConfiguration;
import dev.idempotency.core.MessageTransport;
import dev.idempotency.http.HttpIdempotencyScope;
import dev.idempotency.http.HttpIdempotencySettings;
import dev.idempotency.http.HttpMessageTransport;
import dev.idempotency.http.IdempotencyProblemHandler;
import dev.idempotency.http.IdempotentHandlerAdvisor;
import dev.idempotency.http.RequestBodyCapture;
import dev.idempotency.http.SecurityContextScope;
import dev.idempotency.http.StoredResponseModule;
import dev.idempotency.support.IdempotentAdvisor;
import org.junit.jupiter.api.Test;

import org.springframework.boot.autoconfigure.AutoConfigurations;
import org.springframework.boot.test.context.FilteredClassLoader;
import org.springframework.boot.test.context.runner.ApplicationContextRunner;
import org.springframework.boot.test.context.runner.WebApplicationContextRunner;
import org.springframework.mock.web.MockHttpServletRequest;
import org.springframework.security.core.context.SecurityContextHolder;
import org.springframework.web.servlet.DispatcherServlet;

import static org.assertj.core.api.Assertions.assertThat;

/**
 * Tests for {@link IdempotencyHttpAutoConfiguration} and
 * {@link IdempotencyHttpTransportAutoConfiguration}.
 */
class IdempotencyHttpAutoConfigurationTests {

	private final WebApplicationContextRunner contextRunner = new WebApplicationContextRunner()
		.withConfiguration(AutoConfigurations.of(IdempotencyStoreAutoConfiguration.class,
				IdempotencyAutoConfiguration.class, IdempotencyHttpTransportAutoConfiguration.class,
				IdempotencyHttpAutoConfiguration.class))
		.withPropertyValues("idempotency.store.type=in-memory");

	@Test
	void aServletApplicationGetsTheTransportItsAdvisorsAndAdvices() {
		this.contextRunner.run((context) -> {
			assertThat(context).hasSingleBean(HttpMessageTransport.class)
				.hasSingleBean(RequestBodyCapture.class)
				.hasSingleBean(IdempotencyProblemHandler.class)
				.hasSingleBean(StoredResponseModule.class)
				.hasSingleBean(SecurityContextScope.class);
			assertThat(context.getBeansOfType(IdempotentHandlerAdvisor.class)).hasSize(2);
		});
	}

	@Test
	void theRequestAdvisorRunsJustOutsideTheEnginesAndTheResponseAdvisorJustInside() {
		this.contextRunner.withPropertyValues("idempotency.advisor-order=100").run((context) -> {
			assertThat(context.getBean(IdempotentAdvisor.class).getOrder()).isEqualTo(100);
			assertThat(context.getBean("idempotentRequestAdvisor", IdempotentHandlerAdvisor.class).getOrder())
				.isEqualTo(99);
			assertThat(context.getBean("idempotentResponseAdvisor", IdempotentHandlerAdvisor.class).getOrder())
				.isEqualTo(101);
		});
	}

	@Test
	void withoutSpringSecurityTheScopeIsTheContainersPrincipal() {
		this.contextRunner.withClassLoader(new FilteredClassLoader(SecurityContextHolder.class)).run((context) -> {
			assertThat(context).hasSingleBean(HttpIdempotencyScope.class).doesNotHaveBean(SecurityContextScope.class);
			MockHttpServletRequest request = new MockHttpServletRequest();
			assertThat(context.getBean(HttpIdempotencyScope.class).scopeOf(request)).isNull();
			request.setUserPrincipal(() -> "alice");
			assertThat(context.getBean(HttpIdempotencyScope.class).scopeOf(request)).isEqualTo("alice");
		});
	}

	@Test
	void anApplicationsScopeWins() {
		this.contextRunner.withBean("tenantScope", HttpIdempotencyScope.class,
				() -> (request) -> request.getHeader("X-Tenant"))
			.run((context) -> assertThat(context).hasSingleBean(HttpIdempotencyScope.class)
				.hasBean("tenantScope"));
	}

	@Test
	void switchedOffTheHandlersRunAsPlainIdempotentMethods() {
		this.contextRunner.withPropertyValues("idempotency.http.enabled=false")
			.run((context) -> assertThat(context).doesNotHaveBean(HttpMessageTransport.class)
				.doesNotHaveBean(IdempotentHandlerAdvisor.class)
				.doesNotHaveBean(RequestBodyCapture.class));
	}

	@Test
	void backsOffWhenInterceptionIsOff() {
		this.contextRunner.withPropertyValues("idempotency.enabled=false")
			.run((context) -> assertThat(context).doesNotHaveBean(IdempotentHandlerAdvisor.class)
				.hasSingleBean(MessageTransport.class));
	}

	@Test
	void backsOffOutsideAServletApplication() {
		new ApplicationContextRunner()
			.withConfiguration(AutoConfigurations.of(IdempotencyStoreAutoConfiguration.class,
					IdempotencyAutoConfiguration.class, IdempotencyHttpAutoConfiguration.class))
			.withPropertyValues("idempotency.store.type=in-memory")
			.run((context) -> assertThat(context).hasNotFailed().doesNotHaveBean(IdempotentHandlerAdvisor.class));
	}

	@Test
	void backsOffWithoutSpringMvc() {
		this.contextRunner.withClassLoader(new FilteredClassLoader(DispatcherServlet.class))
			.run((context) -> assertThat(context).hasNotFailed()
				.doesNotHaveBean(HttpMessageTransport.class)
				.doesNotHaveBean(IdempotentHandlerAdvisor.class));
	}

	@Test
	void defaultsArePinned() {
		HttpIdempotencySettings settings = new IdempotencyHttpProperties().toSettings();
		assertThat(settings).isEqualTo(new HttpIdempotencySettings("Idempotency-Key", 255, 1024 * 1024,
				"Idempotent-Replayed", List.of("Location", "Content-Type", "Content-Location", "ETag", "Last-Modified"),
				true, false, Duration.ofSeconds(1)));
		assertThat(IdempotencyProperties.DEFAULT_ADVISOR_ORDER).isNotEqualTo(Integer.MIN_VALUE);
	}

	/** The configuration snippet of docs/http.md. */
	@Test
	void theDocumentedSnippetBinds() {
		this.contextRunner
			.withPropertyValues("idempotency.http.key-header=Idempotency-Key", "idempotency.http.max-body-size=256KB",
					"idempotency.http.stored-headers=Location,Content-Type", "idempotency.stored-result.max-size=16KB")
			.run((context) -> {
				HttpIdempotencySettings settings = context.getBean(IdempotencyHttpProperties.class).toSettings();
				assertThat(settings.maxBodySize()).isEqualTo(256 * 1024);
				assertThat(settings.storedHeaders()).containsExactly("Location", "Content-Type");
				assertThat(context.getBean(IdempotencyProperties.class).getStoredResult().getMaxSize().toKilobytes())
					.isEqualTo(16);
			});
	}

	@Test
	void propertiesAreBound() {
		this.contextRunner
			.withPropertyValues("idempotency.http.key-header=X-Request-Key", "idempotency.http.max-key-length=64",
					"idempotency.http.max-body-size=10KB", "idempotency.http.replayed-header=X-Replayed",
					"idempotency.http.stored-headers=Location", "idempotency.http.store-client-errors=false",
					"idempotency.http.store-server-errors=true", "idempotency.http.retry-after=3s")
			.run((context) -> assertThat(context.getBean(IdempotencyHttpProperties.class).toSettings())
				.isEqualTo(new HttpIdempotencySettings("X-Request-Key", 64, 10 * 1024, "X-Replayed",
						List.of("Location"), false, true, Duration.ofSeconds(3))));
	}

}

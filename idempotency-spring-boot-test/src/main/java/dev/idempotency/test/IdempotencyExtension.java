package dev.idempotency.test;

import org.junit.jupiter.api.extension.BeforeEachCallback;
import org.junit.jupiter.api.extension.ExtensionContext;
import org.junit.jupiter.api.extension.ParameterContext;
import org.junit.jupiter.api.extension.ParameterResolutionException;
import org.junit.jupiter.api.extension.ParameterResolver;

import org.springframework.context.ApplicationContext;
import org.springframework.test.context.junit.jupiter.SpringExtension;

/**
 * JUnit 5 extension of the test kit: before each test it {@linkplain IdempotencyTester#reset() resets}
 * the context's {@link IdempotencyTester} (counts from zero, no store outage, no crash armed), and it
 * resolves test method parameters of that type. Needs the Spring extension ({@code @SpringBootTest}
 * registers it) and the kit's auto-configuration, which {@link IdempotencyTest} imports: annotate the
 * test class with it rather than registering this extension alone.
 *
 * @since 0.2.0
 */
public class IdempotencyExtension implements BeforeEachCallback, ParameterResolver {

	@Override
	public void beforeEach(ExtensionContext context) {
		tester(context).reset();
	}

	@Override
	public boolean supportsParameter(ParameterContext parameterContext, ExtensionContext extensionContext) {
		return parameterContext.getParameter().getType() == IdempotencyTester.class;
	}

	@Override
	public Object resolveParameter(ParameterContext parameterContext, ExtensionContext extensionContext) {
		return tester(extensionContext);
	}

	private static IdempotencyTester tester(ExtensionContext context) {
		ApplicationContext applicationContext = SpringExtension.getApplicationContext(context);
		return applicationContext.getBeanProvider(IdempotencyTester.class)
			.getIfAvailable(() -> {
				throw new ParameterResolutionException("No IdempotencyTester in the test's application context: "
						+ "is @Idempotent switched off (idempotency.enabled=false), or the kit's "
						+ "auto-configuration excluded? Annotate the test class with @IdempotencyTest.");
			});
	}

}

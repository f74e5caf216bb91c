package dev.idempotency.test;

import java.lang.annotation.Documented;
import java.lang.annotation.ElementType;
import java.lang.annotation.Inherited;
import java.lang.annotation.Retention;
import java.lang.annotation.RetentionPolicy;
import java.lang.annotation.Target;

import org.junit.jupiter.api.extension.ExtendWith;

import org.springframework.boot.autoconfigure.ImportAutoConfiguration;

/**
 * Puts the test kit into a Spring Boot test of an application that uses {@code @Idempotent}: an
 * {@link IdempotencyTester} bean (to inject, or as a test method's parameter), the wrappers it needs
 * around the stores and the {@code @Idempotent} methods, a {@code SimpleMeterRegistry} when the
 * application has no {@code MeterRegistry}, and counts reset before each test. Use it next to
 * {@code @SpringBootTest} (or a test slice).
 *
 * @since 0.2.0
 * @see IdempotencyExtension
 */
@Target(ElementType.TYPE)
@Retention(RetentionPolicy.RUNTIME)
@Documented
@Inherited
@ExtendWith(IdempotencyExtension.class)
@ImportAutoConfiguration(IdempotencyTestAutoConfiguration.class)
public @interface IdempotencyTest {

}

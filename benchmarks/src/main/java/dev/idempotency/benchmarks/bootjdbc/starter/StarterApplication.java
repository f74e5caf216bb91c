package dev.idempotency.benchmarks.bootjdbc.starter;

import org.springframework.boot.autoconfigure.SpringBootApplication;

/**
 * The same application with the starter: a plain {@code @SpringBootApplication}, Spring Boot's
 * auto-configured pool and transaction manager, and one {@code @Idempotent} bean
 * ({@link StarterLedger}).
 */
@SpringBootApplication(proxyBeanMethods = false)
public class StarterApplication {

}

package dev.idempotency.benchmarks.bootjdbc.hand;

import org.springframework.boot.autoconfigure.SpringBootApplication;

/**
 * The baseline of the Boot JDBC suite as a user writes it without the starter: a plain
 * {@code @SpringBootApplication} with Spring Boot's auto-configured pool and transaction manager, and
 * one {@code @Transactional} bean ({@link HandLedger}).
 */
@SpringBootApplication(proxyBeanMethods = false)
public class HandApplication {

}

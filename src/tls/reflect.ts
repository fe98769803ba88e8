/**
 * The Reflect metadata polyfill @peculiar/x509's dependency tsyringe checks
 * for when it loads. A module of its own, imported before @peculiar/x509: a
 * bundle runs each ES module's body in import order, while a CommonJS
 * package's require sits in the body of the module that imports it (after
 * that module's ES imports have run).
 */
import "reflect-metadata";

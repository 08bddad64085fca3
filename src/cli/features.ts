// Feature modules register their commands, schedulers and demo data here (side-effect imports).
export {};

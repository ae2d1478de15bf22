"""The study pipeline: experiment files, the batch runner, the dataset on disk, default paths, the engine benchmark."""
